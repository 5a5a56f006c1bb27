package apiclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// UnreadableAnswerError is an answer that came but is not what was asked
// for, in a way no API server answers a get, list or watch: a 101 upgrade,
// a body that ended (cleanly) before its JSON did, a list page that is a
// Status, an ERROR event whose object is no Status. The commands name the
// server and the request with it (diagnose.IsUnreadableAnswer).
type UnreadableAnswerError struct {
	// What the answer was, in the plugin's words.
	What string
	// Err is the decoder's error, if one said more (nil: What says all).
	Err error
	// Head: it is the answer's head that could not be read (no body came).
	Head bool
}

func (e *UnreadableAnswerError) Error() string {
	if e.Err == nil {
		return e.What
	}
	return e.What + ": " + decodeWords(e.Err)
}

// decodeWords is a decoder's error in the API's words: encoding/json
// names Go's types ("cannot unmarshal string into Go value of type
// int32"), which say nothing of the answer (adversary try 14).
func decodeWords(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		where := "a value"
		if te.Field != "" {
			where = strconv.Quote(te.Field)
		}
		return fmt.Sprintf("%s is a JSON %s, where the API has %s", where, te.Value, jsonKind(te.Type))
	case errors.As(err, &se) && se.Offset == 0 && strings.HasPrefix(se.Error(), "unexpected end"):
		return "its body is empty" // json.Unmarshal of no bytes
	case errors.As(err, &se) && strings.HasPrefix(se.Error(), "unexpected end"):
		return "its JSON ends half way"
	case errors.As(err, &se):
		return fmt.Sprintf("it is not JSON (at byte %d)", se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "its JSON ends half way"
	}
	return err.Error()
}

// jsonKind is what JSON value a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return "an object"
	}
	return "another kind of value"
}

func (e *UnreadableAnswerError) Unwrap() error { return e.Err }

// UnreadableAnswer marks the class for pkg/diagnose, which imports no
// client.
func (e *UnreadableAnswerError) UnreadableAnswer() {}
