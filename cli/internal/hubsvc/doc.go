// Package hubsvc is the product of firewatch hub on top of package hub:
// what the hub holds for its life and lends to every session.
//
//   - Hub (hub.go): one follow.Follower per run however many sessions
//     watch it, its polls through the run's lease in the hub's one
//     archive store; who acted through the hub; --follow-processing.
//   - the team's list, asked once for every session's runs screen
//     (list.go), and the hub's archive passes and completions (keep.go).
//   - Session (session.go): what a command run for one SSH session gets,
//     as a value handed to it: the hub's service and key, the session's
//     terminal and person, and the services its screens act through,
//     checked against the person's access and told to the hub's log.
//   - what a session without a terminal may run (commands.go), and the
//     hub's flags, checks and serving (serve.go).
//
// Package cli keeps the cobra command and hands this package what it
// needs of the command layer (clients, the archive, exit-code rules) as
// values in Env: this package never imports cli.
package hubsvc
