package apiclient

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
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

// TestDecodeWordsNameTheAPIsKindNeverGosType: every kind of field the
// plugin decodes, given a value of another JSON type, is said in the API's
// words: the field's JSON path and what the API has there, never a Go
// type, and a number out of a field's range is never "a number, where the
// API has a number" (adversary try 19 #4: a Status "code" of 99999999999).
func TestDecodeWordsNameTheAPIsKindNeverGosType(t *testing.T) {
	var v struct {
		Code    int32             `json:"code"`
		Count   int64             `json:"count"`
		Name    string            `json:"name"`
		Labels  map[string]string `json:"labels"`
		Items   []ItemMeta        `json:"items"`
		Ready   bool              `json:"ready"`
		Managed NewestTime        `json:"managed"`
		When    *time.Time        `json:"when"`
		Port    uint16            `json:"port"`
	}
	for body, want := range map[string]string{
		`{"code":99999999999}`:               `"code" is the JSON number 99999999999, where the API has a 32-bit integer`,
		`{"code":"410"}`:                     `"code" is a JSON string, where the API has a 32-bit integer`,
		`{"count":1.5}`:                      `"count" is the JSON number 1.5, where the API has a 64-bit integer`,
		`{"name":{"x":1}}`:                   `"name" is a JSON object, where the API has a string`,
		`{"labels":{"a":5}}`:                 `"labels" is a JSON number, where the API has a string`,
		`{"items":[{"name":true}]}`:          `"items.name" is JSON true or false, where the API has a string`,
		`{"ready":"yes"}`:                    `"ready" is a JSON string, where the API has true or false`,
		`{"managed":[{"time":"yesterday"}]}`: `the time "yesterday" is not in RFC 3339`,
		`{"managed":[{"time":5}]}`:           `a time is not a JSON string, where the API has an RFC 3339 time (a string)`,
		`{"when":"2026-13-01T00:00:00Z"}`:    `the time "2026-13-01T00:00:00Z" is not in RFC 3339`,
		`{"port":-1}`:                        `"port" is the JSON number -1, where the API has an integer of 0 or more`,
		`[1]`:                                `it is a JSON array, where the API has an object`,
		`"` + strings.Repeat("x", 500) + `"`: `it is a JSON string, where the API has an object`,
	} {
		err := json.Unmarshal([]byte(body), &v)
		if err == nil {
			t.Fatalf("%q decoded", body)
		}
		got := Undecodable("a thing that does not decode", err).Error()
		if got != "a thing that does not decode: "+want {
			t.Errorf("%q: %q, want %q", body, got, want)
		}
		for _, goWords := range []string{"Go struct", "Go value", "of type", "json:", "apiclient.", "Time.UnmarshalJSON", "2006"} {
			if strings.Contains(got, goWords) {
				t.Errorf("%q: %q says %q", body, got, goWords)
			}
		}
	}
}
