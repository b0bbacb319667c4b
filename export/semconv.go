package export

import "go.opentelemetry.io/otel/attribute"

// The OpenTelemetry semantic conventions the spans use, as semconv v1.41.0
// spells them (the last semconv package of the Go SDK that carries gen_ai.*).
// TestSemconvAsUpstream checks each against that package, which only the
// test imports: imported here it would compute its few hundred enum values
// in every firewatch process, `firewatch version` included, for the dozen
// names the export sets.
const (
	semconvSchemaURL = "https://opentelemetry.io/schemas/1.41.0"

	keyServiceName            = attribute.Key("service.name")
	keyServiceVersion         = attribute.Key("service.version")
	keyErrorType              = attribute.Key("error.type")
	keyGenAIOperationName     = attribute.Key("gen_ai.operation.name")
	keyGenAIProviderName      = attribute.Key("gen_ai.provider.name")
	keyGenAIConversationID    = attribute.Key("gen_ai.conversation.id")
	keyGenAIAgentID           = attribute.Key("gen_ai.agent.id")
	keyGenAIAgentName         = attribute.Key("gen_ai.agent.name")
	keyGenAIToolName          = attribute.Key("gen_ai.tool.name")
	keyGenAIToolCallID        = attribute.Key("gen_ai.tool.call.id")
	keyGenAIToolCallArguments = attribute.Key("gen_ai.tool.call.arguments")
	keyGenAIToolCallResult    = attribute.Key("gen_ai.tool.call.result")
	keyGenAIRequestModel      = attribute.Key("gen_ai.request.model")
	keyGenAIInputMessages     = attribute.Key("gen_ai.input.messages")

	// Values of gen_ai.operation.name.
	opInvokeAgent = "invoke_agent"
	opExecuteTool = "execute_tool"
)
