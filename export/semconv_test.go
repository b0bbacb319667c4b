package export

import (
	"testing"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// TestSemconvAsUpstream: the conventions export spells out are semconv
// v1.41.0's, name for name and value for value.
func TestSemconvAsUpstream(t *testing.T) {
	if semconvSchemaURL != semconv.SchemaURL {
		t.Errorf("schema URL %q, semconv has %q", semconvSchemaURL, semconv.SchemaURL)
	}
	for _, c := range []struct{ ours, theirs attribute.Key }{
		{keyServiceName, semconv.ServiceNameKey},
		{keyServiceVersion, semconv.ServiceVersionKey},
		{keyErrorType, semconv.ErrorTypeKey},
		{keyGenAIOperationName, semconv.GenAIOperationNameKey},
		{keyGenAIProviderName, semconv.GenAIProviderNameKey},
		{keyGenAIConversationID, semconv.GenAIConversationIDKey},
		{keyGenAIAgentID, semconv.GenAIAgentIDKey},
		{keyGenAIAgentName, semconv.GenAIAgentNameKey},
		{keyGenAIToolName, semconv.GenAIToolNameKey},
		{keyGenAIToolCallID, semconv.GenAIToolCallIDKey},
		{keyGenAIToolCallArguments, semconv.GenAIToolCallArgumentsKey},
		{keyGenAIToolCallResult, semconv.GenAIToolCallResultKey},
		{keyGenAIRequestModel, semconv.GenAIRequestModelKey},
		{keyGenAIInputMessages, semconv.GenAIInputMessagesKey},
	} {
		if c.ours != c.theirs {
			t.Errorf("key %q, semconv has %q", c.ours, c.theirs)
		}
	}
	for _, c := range []struct{ ours, theirs attribute.KeyValue }{
		{keyGenAIOperationName.String(opInvokeAgent), semconv.GenAIOperationNameInvokeAgent},
		{keyGenAIOperationName.String(opExecuteTool), semconv.GenAIOperationNameExecuteTool},
		{keyServiceName.String("firewatch"), semconv.ServiceName("firewatch")},
		{keyServiceVersion.String("1.2.3"), semconv.ServiceVersion("1.2.3")},
	} {
		if c.ours != c.theirs {
			t.Errorf("%v, semconv has %v", c.ours, c.theirs)
		}
	}
}
