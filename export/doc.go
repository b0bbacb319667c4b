// Package export shares a run outside the terminal: as OpenTelemetry spans
// sent over OTLP/HTTP (Exporter), and as a self-contained HTML or Markdown
// report (Report). Both read a model.Store; neither draws on a terminal.
//
// # Spans
//
// The run is one trace. Its spans follow the OpenTelemetry GenAI semantic
// conventions for agents, pinned at semconv v1.41.0 (the last semconv
// package of the Go SDK that still carries gen_ai.*):
//
//	invoke_agent                 CLIENT    the run: gen_ai.operation.name=invoke_agent,
//	                                       gen_ai.provider.name=firecrawl, gen_ai.conversation.id=<job id>
//	  invoke_agent {name}        INTERNAL  each agent, under the agent that spawned it
//	    execute_tool {tool}      INTERNAL  each tool call: gen_ai.tool.name, gen_ai.tool.call.id
//	    browser_session          INTERNAL  each browser session
//
// Reasoning summaries, progress (phases), artifact updates and non-fatal
// errors are span events of the agent that emitted them; run.started,
// run.cancel_requested and run.finished are events of the run span. A
// failed run, agent or tool call has status Error and error.type set to the
// error code. Credits, tokens and outcomes are firecrawl.* attributes.
// Every span also carries openinference.span.kind (Phoenix) and
// langfuse.observation.type (Langfuse). Tool parameters and results are
// attributes only with Options.Content. Live-view URLs are never exported.
//
// Times are the trace's own (occurredAt), never the clock of the machine
// exporting. Ids are derived from the job id and the agent, tool-call and
// session ids (a SHA-256 of each), so two exports of the same run give the
// same trace and span ids, and a live export equals the export of its
// recording. A span still open when the export closes is ended at the last
// event's time and marked firecrawl.unfinished=true.
//
// The spans are made with the OpenTelemetry Go SDK (a tracer with its own
// IDGenerator that hands out the derived ids, explicit start and end
// timestamps) and sent by its batch span processor and the otlptracehttp
// exporter (protobuf over HTTP), which honour the standard
// OTEL_EXPORTER_OTLP_* variables. A failed batch is retried a few times,
// then counted and reported once (Options.OnError); it never blocks the
// caller.
package export
