// Package prefault maps the executable's code into the process at once, as
// early in start-up as package initialisation allows, instead of a page
// fault at a time as start-up first runs each piece of it.
//
// Package initialisation runs code scattered over most of the binary's
// 9 MB of text: on the virtual machines we measure on, a hundred faults on
// the text cost `firewatch version` about 3 ms of its ~18 ms of CPU. One
// MADV_POPULATE_READ (Linux 5.14 and later) over the text mapping costs a
// fraction of that and maps the rest too, clean pages shared with the page
// cache (about 2.5 MB more resident than start-up faults in anyway). On
// other systems, and on older kernels (EINVAL), it does nothing.
//
// The package depends on as little as it can so that it is initialised
// before the packages whose start-up it speeds up: on linux/amd64 on nothing
// (it makes its four system calls itself, and is initialised fifth), on other
// Linux platforms on package syscall (fifteenth). main imports it for its
// side effect.
package prefault
