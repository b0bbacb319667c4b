package export

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	collpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

const otlpFirstUseEnv = "FIREWATCH_TEST_OTLP_FIRST_USE"

// TestOTLPTypesRegisterOnFirstUse: the patched OTLP types
// (third_party/otlpproto) register with the protobuf runtime when first
// used, not before main, and first uses racing in several goroutines each
// get registered types. It runs in a fresh process of this test binary, so
// that no other test has used the types yet.
func TestOTLPTypesRegisterOnFirstUse(t *testing.T) {
	if os.Getenv(otlpFirstUseEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOTLPTypesRegisterOnFirstUse$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), otlpFirstUseEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestOTLPTypesRegisterOnFirstUse") {
			t.Fatalf("fresh process: %v\n%s", err, out)
		}
		return
	}
	const path = "opentelemetry/proto/collector/trace/v1/trace_service.proto"
	if _, err := protoregistry.GlobalFiles.FindFileByPath(path); err == nil {
		t.Fatal("the OTLP types were registered before their first use")
	}
	req := &collpb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{
			Name: "search", Kind: tracepb.Span_SPAN_KIND_CLIENT,
			Attributes: []*commonpb.KeyValue{{Key: "k", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 7}}}},
			Status:     &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR},
		}}}},
	}}}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			switch i % 3 {
			case 0:
				if s := tracepb.Span_SPAN_KIND_SERVER.String(); s != "SPAN_KIND_SERVER" {
					t.Errorf("enum String %q", s)
				}
			case 1:
				b, err := proto.Marshal(req)
				if err != nil {
					t.Error(err)
					return
				}
				var back collpb.ExportTraceServiceRequest
				if err := proto.Unmarshal(b, &back); err != nil || !proto.Equal(req, &back) {
					t.Errorf("round trip: %v, equal %v", err, proto.Equal(req, &back))
				}
			default:
				var kv commonpb.KeyValue
				kv.Reset()
				if n := kv.ProtoReflect().Descriptor().FullName(); n != "opentelemetry.proto.common.v1.KeyValue" {
					t.Errorf("descriptor %q", n)
				}
			}
		})
	}
	wg.Wait()
	for _, name := range []string{"opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
		"opentelemetry.proto.trace.v1.Span", "opentelemetry.proto.resource.v1.Resource", "opentelemetry.proto.common.v1.AnyValue"} {
		if _, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(name)); err != nil {
			t.Errorf("%s not registered after first use: %v", name, err)
		}
	}
}

// The patched protobuf runtime (third_party/protobuf) picks the "proto:"
// prefix of its errors, and hashes the executable for it, on first use
// instead of before main; its errors read as before.
func TestProtobufErrorsKeepTheirPrefix(t *testing.T) {
	err := proto.Unmarshal([]byte{0xff}, &collpb.ExportTraceServiceRequest{})
	if err == nil {
		t.Fatal("a truncated varint was accepted")
	}
	msg := strings.Replace(err.Error(), "proto:\u00a0", "proto: ", 1)
	if !errors.Is(err, proto.Error) || msg != "proto: cannot parse invalid wire-format data" {
		t.Errorf("Unmarshal error %q (is proto.Error: %v)", err, errors.Is(err, proto.Error))
	}
}
