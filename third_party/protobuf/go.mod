module google.golang.org/protobuf

go 1.23

require (
	github.com/golang/protobuf v1.5.0
	github.com/google/go-cmp v0.7.0
)
