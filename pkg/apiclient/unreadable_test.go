package apiclient

import (
	"encoding/json"
	"testing"
)

// TestDecodeWordsTellsEmptyFromCut: encoding/json calls an empty body and
// a cut one "unexpected end of JSON input" alike; the plugin's words tell
// them apart (adversary try 15: a 204 was "JSON ends half way").
func TestDecodeWordsTellsEmptyFromCut(t *testing.T) {
	var v struct {
		Kind string `json:"kind"`
	}
	for body, want := range map[string]string{
		``:                  "its body is empty",
		`{"kind":"APIVersi`: "its JSON ends half way",
		`<html>`:            "it is not JSON (at byte 1)",
		`{"kind":7}`:        `"kind" is a JSON number, where the API has a string`,
	} {
		err := json.Unmarshal([]byte(body), &v)
		if err == nil {
			t.Fatalf("%q decoded", body)
		}
		if got := decodeWords(err); got != want {
			t.Errorf("%q: %q, want %q", body, got, want)
		}
	}
}
