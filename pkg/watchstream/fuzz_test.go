package watchstream

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDecodeEvent: any bytes as a watch event's object decode to an event
// or an error, never a panic.
func FuzzDecodeEvent(f *testing.F) {
	f.Add("ADDED", `{"kind":"PartialObjectMetadata","metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"5"}}`)
	f.Add("ERROR", `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 2 (211)","reason":"Expired","code":410}`)
	f.Add("BOOKMARK", `{"metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}`)
	f.Add("DELETED", `null`)
	f.Add("WHAT", `{}`)
	f.Fuzz(func(t *testing.T, typ, raw string) {
		frame, err := json.Marshal(map[string]any{"type": typ, "object": json.RawMessage(raw)})
		if err != nil {
			return // raw is not JSON: no server sends such a frame
		}
		e, err := FromReader(bytes.NewReader(frame)).Next()
		if err == nil && e.Type != typ {
			t.Fatalf("type changed: %q -> %q", typ, e.Type)
		}
		if err == nil && typ == EventError && e.Status == nil {
			t.Fatal("an ERROR event decoded without a Status")
		}
	})
}
