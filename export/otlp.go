package export

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// DefaultEndpoint is where spans go when neither a flag nor the
// environment says: the OpenTelemetry default for OTLP/HTTP.
const DefaultEndpoint = "http://localhost:4318/v1/traces"

const tracesPath = "/v1/traces"

// ResolveEndpoint picks the OTLP/HTTP traces URL: flag (a base URL, to
// which /v1/traces is added unless it already ends so), else
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is), else
// OTEL_EXPORTER_OTLP_ENDPOINT plus /v1/traces, else DefaultEndpoint, the
// rules of the OpenTelemetry specification.
func ResolveEndpoint(flag string) (string, error) {
	base, appendPath, what := flag, true, "--otlp-endpoint"
	if base == "" {
		if v := strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); v != "" {
			base, appendPath, what = v, false, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
		} else if v := strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")); v != "" {
			base, what = v, "OTEL_EXPORTER_OTLP_ENDPOINT"
		} else {
			return DefaultEndpoint, nil
		}
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s %q: it must be an http:// or https:// URL", what, text.Sanitize(base))
	}
	if u.User != nil {
		return "", fmt.Errorf("%s: put credentials in OTEL_EXPORTER_OTLP_HEADERS, not in the URL", what)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%s %q: port %s is not between 1 and 65535", what, text.Sanitize(base), text.Sanitize(p))
		}
	}
	if appendPath && !strings.HasSuffix(u.Path, tracesPath) {
		u.Path = strings.TrimRight(u.Path, "/") + tracesPath
	}
	return u.String(), nil
}

// Options configure an Exporter.
type Options struct {
	// Endpoint is the OTLP/HTTP traces URL (see ResolveEndpoint).
	Endpoint string
	// JobID is the run's id; "" takes the one the trace names.
	JobID string
	// Content adds tool parameters and results (gen_ai.tool.call.arguments
	// and .result); they can be large and private.
	Content bool
	// Secrets (the API key, any other) are replaced by [redacted] in every
	// string sent.
	Secrets *text.Secrets
	// Version is firewatch's version, for service.version.
	Version string
	// Request is what the run was asked to do, where the store does not
	// say (the store's request wins).
	Request model.Request
	// Facts, when set, gives the run's figures from firewatch's record of
	// it (its bill, the attention items, each agent's credits) for the run
	// span, which is then sent at Close, once they are known.
	Facts func() *Facts
	// FactsOf, for NewLive, gives them from the live export's own replay
	// of the polls it was fed (its store, and an attention tracker with the
	// default options fed poll by poll, as firewatch export's replay of a
	// recording has them); it wins over Facts.
	FactsOf func(*follow.Run) *Facts
	// OnError is called once, with the first export that failed after its
	// retries, from the exporting goroutine. It must not block.
	OnError func(error)
	// Timeout bounds one HTTP request (default 5s); BatchTimeout is the
	// longest a finished span waits to be sent (default 1s).
	Timeout, BatchTimeout time.Duration

	// exporter replaces the OTLP exporter (tests).
	exporter sdktrace.SpanExporter
}

// Stats say what an Exporter did.
type Stats struct {
	Endpoint string
	TraceID  trace.TraceID
	Spans    int   // spans the endpoint accepted
	Failed   int   // spans that could not be delivered
	Err      error // the first failure
}

// Exporter sends a run's spans as they end (Observe) and the rest when the
// watch ends (Close). Observe and Close are called from the goroutine that
// merges the store; sending happens on the SDK's own goroutine and never
// blocks them.
type Exporter struct {
	o      Options
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	sent   map[trace.SpanID]uint64 // digest of the version sent
	live   int                     // spans sent by Observe (as they ended)
	queued int                     // spans handed to the SDK since the last flush

	mu     sync.Mutex
	stats  Stats
	made   int // spans handed to the SDK
	report sync.Once
}

// New sets up the SDK: a tracer provider with firewatch's IDGenerator and
// a batch span processor over the otlptracehttp exporter. Nothing is sent
// before the first span ends.
func New(o Options) (*Exporter, error) {
	if o.Endpoint == "" {
		ep, err := ResolveEndpoint("")
		if err != nil {
			return nil, err
		}
		o.Endpoint = ep
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.BatchTimeout <= 0 {
		o.BatchTimeout = time.Second
	}
	x := &Exporter{o: o, sent: make(map[trace.SpanID]uint64)}
	x.stats.Endpoint = o.Endpoint
	inner := o.exporter
	if inner == nil {
		var err error
		guard, err := sameOrigin(o.Endpoint)
		if err != nil {
			return nil, err
		}
		inner, err = otlptracehttp.New(context.Background(),
			otlptracehttp.WithEndpointURL(o.Endpoint),
			otlptracehttp.WithProxy(guard),
			otlptracehttp.WithTimeout(o.Timeout),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
				Enabled:         true,
				InitialInterval: 250 * time.Millisecond,
				MaxInterval:     time.Second,
				MaxElapsedTime:  3 * time.Second,
			}))
		if err != nil {
			return nil, fmt.Errorf("OTLP exporter: %w", err)
		}
	}
	// The SDK reports its own troubles through global hooks that print
	// to stderr, under a terminal UI: firewatch reports them itself.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { x.fail(0, err) }))
	otel.SetLogger(logr.Discard())

	// service.name and .version, telemetry.sdk.*; OTEL_SERVICE_NAME and
	// OTEL_RESOURCE_ATTRIBUTES win over them (later detectors win).
	attrs := []attribute.KeyValue{semconv.ServiceName("firewatch")}
	if o.Version != "" {
		attrs = append(attrs, semconv.ServiceVersion(o.Version))
	}
	res, err := resource.New(context.Background(),
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(attrs...),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv())
	if err != nil {
		// A bad OTEL_RESOURCE_ATTRIBUTES: the rest still holds.
		if res == nil {
			res = resource.NewWithAttributes(semconv.SchemaURL, attrs...)
		}
	}
	x.tp = sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(idGenerator{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit:   -1,
			AttributeCountLimit:         128,
			EventCountLimit:             maxEvents,
			LinkCountLimit:              0,
			AttributePerEventCountLimit: 32,
			AttributePerLinkCountLimit:  0,
		}),
		sdktrace.WithBatcher(&reporting{SpanExporter: inner, x: x},
			sdktrace.WithBatchTimeout(o.BatchTimeout),
			sdktrace.WithMaxExportBatchSize(256),
			sdktrace.WithMaxQueueSize(2*flushEvery),
			sdktrace.WithExportTimeout(o.Timeout*2)),
	)
	x.tracer = x.tp.Tracer("github.com/firewatch/firewatch/export",
		trace.WithInstrumentationVersion(o.Version), trace.WithSchemaURL(semconv.SchemaURL))
	return x, nil
}

// sameOrigin is the exporter's proxy function: the environment's proxy for
// requests to the endpoint's origin, and an error for any other. The SDK's
// HTTP client follows redirects, re-sending the spans and every header
// (OTEL_EXPORTER_OTLP_HEADERS holds credentials); refusing here, where each
// hop's request passes, keeps them at the origin the user named while the
// SDK still applies its TLS and timeout settings.
func sameOrigin(endpoint string) (func(*http.Request) (*url.URL, error), error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %q is not a URL", endpoint)
	}
	want := origin(u)
	return func(r *http.Request) (*url.URL, error) {
		if got := origin(r.URL); got != want {
			return nil, fmt.Errorf("the collector redirected to %s; not followed: spans and headers go only to %s", got, want)
		}
		return http.ProxyFromEnvironment(r)
	}, nil
}

// origin is scheme://host:port with the scheme's default port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// Observe sends the spans that the merge d ended (or changed after they
// were sent). Call it after every merge, on the merging goroutine.
func (x *Exporter) Observe(s *model.Store, d model.Delta) {
	if x == nil {
		return
	}
	b := newBuilder(s, x.o.JobID, x.o.Content, x.o.Secrets, x.o.Request)
	if x.stats.TraceID == (trace.TraceID{}) {
		x.mu.Lock()
		x.stats.TraceID = b.traceID
		x.mu.Unlock()
	}
	for _, a := range d.Agents {
		if sd, ok := b.agent(a, false); ok {
			x.live += x.emit(b, sd)
		}
	}
	for _, t := range d.ToolCalls {
		if sd, ok := b.tool(t, false); ok {
			x.live += x.emit(b, sd)
		}
	}
	for _, ss := range d.Sessions {
		if sd, ok := b.session(ss, false); ok {
			x.live += x.emit(b, sd)
		}
	}
	if (d.RunChanged || d.Credits) && x.o.Facts == nil {
		if sd, ok := b.run(false); ok {
			x.live += x.emit(b, sd)
		}
	}
}

// Close ends the export: every span not sent yet (or changed since) is
// sent, open ones ended at the last event's time and marked unfinished;
// then it waits for the sending, at most until ctx ends.
func (x *Exporter) Close(ctx context.Context, s *model.Store) Stats {
	if x == nil {
		return Stats{}
	}
	if s != nil && s.Len() > 0 {
		b := newBuilder(s, x.o.JobID, x.o.Content, x.o.Secrets, x.o.Request)
		if x.o.Facts != nil {
			b.facts = x.o.Facts()
		}
		x.mu.Lock()
		x.stats.TraceID = b.traceID
		x.mu.Unlock()
		for _, sd := range b.all(true) {
			x.emit(b, sd)
		}
	}
	if err := x.tp.Shutdown(ctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer from %s in time for the last spans", x.o.Endpoint)
		}
		x.fail(0, err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if lost := x.made - x.stats.Spans - x.stats.Failed; lost > 0 {
		// Dropped by the processor, or still on their way when ctx ended.
		x.stats.Failed += lost
		if x.stats.Err == nil {
			x.stats.Err = fmt.Errorf("%d spans were not sent in time", lost)
		}
	}
	return x.stats
}

// Failing reports whether an export has failed so far.
func (x *Exporter) Failing() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.stats.Err != nil
}

// emit turns one span's data into an SDK span, unless the same version was
// sent already; it returns the number of spans made (0 or 1).
func (x *Exporter) emit(b *builder, sd spanData) int {
	dg := sd.digest()
	if prev, ok := x.sent[sd.ID]; ok && prev == dg {
		return 0
	}
	x.sent[sd.ID] = dg
	ctx := context.WithValue(context.Background(), idKey{}, ids{trace: b.traceID, span: sd.ID})
	if sd.Parent.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: b.traceID, SpanID: sd.Parent, TraceFlags: trace.FlagsSampled,
		}))
	}
	_, span := x.tracer.Start(ctx, sd.Name,
		trace.WithSpanKind(sd.Kind),
		trace.WithTimestamp(sd.Start),
		trace.WithAttributes(sd.Attrs...))
	for _, e := range sd.Events {
		span.AddEvent(e.Name, trace.WithTimestamp(e.At), trace.WithAttributes(e.Attrs...))
	}
	if sd.Status != 0 {
		span.SetStatus(sd.Status, sd.StatusMsg)
	}
	span.End(trace.WithTimestamp(sd.End))
	x.mu.Lock()
	x.made++ // read by Close, which may give up on a stuck Live loop
	x.mu.Unlock()
	if x.queued++; x.queued >= flushEvery {
		// A burst (an export of a whole run, or a poll that ends
		// thousands of calls) would overflow the processor's queue,
		// which drops spans: send what is queued first. This waits on
		// the exporting goroutine, never on the watch's.
		x.queued = 0
		ctx, cancel := context.WithTimeout(context.Background(), 2*x.o.Timeout)
		_ = x.tp.ForceFlush(ctx)
		cancel()
	}
	return 1
}

// flushEvery is how many spans are queued before they are flushed.
const flushEvery = 1024

// fail counts a failure and reports the first one.
func (x *Exporter) fail(spans int, err error) {
	if err == nil {
		return
	}
	x.mu.Lock()
	x.stats.Failed += spans
	if x.stats.Err == nil {
		x.stats.Err = err
	}
	x.mu.Unlock()
	x.report.Do(func() {
		if x.o.OnError != nil {
			x.o.OnError(err)
		}
	})
}

// reporting counts what the endpoint accepted and turns failures into one
// report instead of the SDK's log line.
type reporting struct {
	sdktrace.SpanExporter
	x *Exporter
}

func (r *reporting) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := r.SpanExporter.ExportSpans(ctx, spans)
	if errors.Is(err, proto.Error) {
		// The SDK reads a 2xx answer's body only, for a partial success:
		// a body that is not the protobuf answer leaves the 2xx standing,
		// and the collector took the spans.
		err = nil
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer from %s in time: %w", r.x.o.Endpoint, err)
		}
		r.x.fail(len(spans), err)
		return nil
	}
	r.x.mu.Lock()
	r.x.stats.Spans += len(spans)
	r.x.mu.Unlock()
	return nil
}

// idGenerator hands the SDK the ids firewatch derived (carried in the
// context of Start), so the same run always gives the same ids.
type idGenerator struct{}

type idKey struct{}

type ids struct {
	trace trace.TraceID
	span  trace.SpanID
}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	v, _ := ctx.Value(idKey{}).(ids)
	return v.trace, v.span
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	v, _ := ctx.Value(idKey{}).(ids)
	return v.span
}
