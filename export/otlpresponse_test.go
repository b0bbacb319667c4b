package export

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	collpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestExporterReadsPartialSuccess: the exporter (third_party/otlptracehttp,
// whose JSON response decoding no longer uses protojson) reports a
// collector's partial success whether it answers in protobuf or in JSON,
// with either field naming and rejectedSpans as a string or a number.
func TestExporterReadsPartialSuccess(t *testing.T) {
	pb, err := proto.Marshal(&collpb.ExportTraceServiceResponse{PartialSuccess: &collpb.ExportTracePartialSuccess{
		RejectedSpans: 2, ErrorMessage: "quota"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, ctype, body, want string
	}{
		{"protobuf", "application/x-protobuf", string(pb), "quota (2 spans rejected)"},
		{"json string", "application/json", `{"partialSuccess":{"rejectedSpans":"2","errorMessage":"quota"},"extra":[1]}`, "quota (2 spans rejected)"},
		{"json number, proto names", "application/json", `{"partial_success":{"rejected_spans":2,"error_message":"quota","x":{}}}`, "quota (2 spans rejected)"},
		{"json message only", "application/json", `{"partialSuccess":{"errorMessage":"slow down"}}`, "slow down (0 spans rejected)"},
		{"json empty", "application/json", `{}`, ""},
		{"json null", "application/json", `{"partialSuccess":null}`, ""},
		{"json bad count", "application/json", `{"partialSuccess":{"rejectedSpans":"two"}}`, "rejectedSpans: invalid value"},
		{"json bad message", "application/json", `{"partialSuccess":{"errorMessage":5}}`, "errorMessage"},
		{"json not an object", "application/json", `[1]`, "ExportTraceServiceResponse"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.ctype)
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"),
				otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = exp.Shutdown(context.Background()) }()
			err = exp.ExportSpans(context.Background(), tracetest.SpanStubs{{Name: "s"}}.Snapshots())
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one holding %q", err, c.want)
			}
		})
	}
}
