// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package otlpjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
)

// firewatch's copy: the response is decoded with encoding/json instead of
// protojson, whose package initialisation every firewatch command paid
// (see FIREWATCH.md). It accepts what protojson accepted for this message:
// the JSON and the proto field names, rejectedSpans as a number or a
// string, null for a field, and unknown fields (ignored, per the OTLP
// specification). The copy's exporter only reads responses, so the
// marshalling half is left out.

// UnmarshalExportTraceServiceResponse decodes JSON Protobuf encoded payload into an ExportTraceServiceResponse.
func UnmarshalExportTraceServiceResponse(data []byte, resp *coltracepb.ExportTraceServiceResponse) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("ExportTraceServiceResponse: %w", err)
	}
	raw := field(top, "partialSuccess", "partial_success")
	if raw == nil {
		return nil
	}
	var ps map[string]json.RawMessage
	if err := json.Unmarshal(raw, &ps); err != nil {
		return fmt.Errorf("ExportTraceServiceResponse.partialSuccess: %w", err)
	}
	out := &coltracepb.ExportTracePartialSuccess{}
	if raw := field(ps, "rejectedSpans", "rejected_spans"); raw != nil {
		s := string(raw)
		if uq, err := strconv.Unquote(s); err == nil && len(raw) > 0 && raw[0] == '"' {
			s = uq
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("ExportTraceServiceResponse.partialSuccess.rejectedSpans: invalid value %s", raw)
		}
		out.RejectedSpans = n
	}
	if raw := field(ps, "errorMessage", "error_message"); raw != nil {
		if err := json.Unmarshal(raw, &out.ErrorMessage); err != nil {
			return fmt.Errorf("ExportTraceServiceResponse.partialSuccess.errorMessage: %w", err)
		}
	}
	resp.PartialSuccess = out
	return nil
}

// field is the value of the first of names present in m, nil when absent
// or null.
func field(m map[string]json.RawMessage, names ...string) json.RawMessage {
	for _, n := range names {
		if v, ok := m[n]; ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return v
		}
	}
	return nil
}
