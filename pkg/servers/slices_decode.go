package servers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
)

// readSlices reads an EndpointSliceList as it streams, token by token, and
// adds the servers of each slice to all; it returns how many slices there
// are. Nothing is kept but what the bounded sets keep (MaxServers+1 of
// each), so the memory it takes does not grow with the answer: a list of
// 120,000 addresses, or one address list of 200 MB within the list cap,
// costs what a list of 65 does (adversary try 19). A value is held whole
// only while it is one token (a string, a number). A value of another
// kind than the API's is a *json.UnmarshalTypeError naming its field's
// path, as encoding/json's own decoder would give it, so that the one
// translator (apiclient's decodeWords) says it in the API's words.
func readSlices(r io.Reader, all *serverSet) (int, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	n := 0
	err := object(dec, "", func(key string) error {
		if key != "items" {
			return skip(dec)
		}
		return array(dec, "items", func() error {
			n++
			var sl slice
			if err := readSlice(dec, &sl); err != nil {
				return err
			}
			all.addSlice(&sl)
			return nil
		})
	})
	return n, err
}

// readSlice reads one EndpointSlice: its addressType, its ports and the
// addresses of its ready endpoints; the rest is skipped.
func readSlice(dec *json.Decoder, sl *slice) error {
	return object(dec, "items", func(key string) error {
		switch key {
		case "addressType":
			s, err := stringOf(dec, "items.addressType")
			sl.addressType = s
			return err
		case "ports":
			return array(dec, "items.ports", func() error { return readPort(dec, sl) })
		case "endpoints":
			return array(dec, "items.endpoints", func() error { return readEndpoint(dec, sl) })
		}
		return skip(dec)
	})
}

// readPort adds the port of the API: the one named https, or unnamed (as
// the lease reconciler writes it).
func readPort(dec *json.Decoder, sl *slice) error {
	name, port := "", ""
	err := object(dec, "items.ports", func(key string) error {
		switch key {
		case "name":
			s, err := stringOf(dec, "items.ports.name")
			name = s
			return err
		case "port":
			tok, err := dec.Token()
			if err != nil || tok == nil {
				return err
			}
			num, ok := tok.(json.Number)
			if !ok {
				return typeError(tok, reflect.TypeFor[int32](), "items.ports.port")
			}
			p, perr := strconv.Atoi(string(num))
			if perr != nil || p < 1 || p > 65535 {
				return fmt.Errorf(`"items.ports.port" %s is not a port (1 to 65535)`, strconv.Quote(string(num)))
			}
			port = strconv.Itoa(p)
			return nil
		}
		return skip(dec)
	})
	if err == nil && port != "" && (name == "" || name == "https") {
		sl.ports.addWord(port)
	}
	return err
}

// readEndpoint adds the addresses of one endpoint when it is ready (a
// ready condition not given counts as ready, as the API's consumers read
// it). Its addresses may come before its conditions: they are gathered
// in a bounded set first.
func readEndpoint(dec *json.Decoder, sl *slice) error {
	var addrs words
	ready := true
	err := object(dec, "items.endpoints", func(key string) error {
		switch key {
		case "addresses":
			return array(dec, "items.endpoints.addresses", func() error {
				s, err := stringOf(dec, "items.endpoints.addresses")
				if err == nil {
					addrs.addWord(s)
				}
				return err
			})
		case "conditions":
			return object(dec, "items.endpoints.conditions", func(key string) error {
				if key != "ready" {
					return skip(dec)
				}
				tok, err := dec.Token()
				if err != nil || tok == nil {
					return err
				}
				b, ok := tok.(bool)
				if !ok {
					return typeError(tok, reflect.TypeFor[bool](), "items.endpoints.conditions.ready")
				}
				ready = b
				return nil
			})
		}
		return skip(dec)
	})
	if err == nil && ready {
		sl.ready.addAll(&addrs)
	}
	return err
}

// object reads a JSON object (or null) at path and calls field for each
// key, which must read the key's value.
func object(dec *json.Decoder, path string, field func(key string) error) error {
	if open, err := opening(dec, '{', path, reflect.TypeFor[map[string]any]()); err != nil || !open {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := field(key); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// array reads a JSON array (or null) at path and calls each for every
// element, which must read it.
func array(dec *json.Decoder, path string, each func() error) error {
	if open, err := opening(dec, '[', path, reflect.TypeFor[[]any]()); err != nil || !open {
		return err
	}
	for dec.More() {
		if err := each(); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// opening reads the delimiter that opens a value at path, of Go type
// kind: false for a null.
func opening(dec *json.Decoder, want json.Delim, path string, kind reflect.Type) (bool, error) {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return false, err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		if ok && (d == '}' || d == ']') {
			return false, errors.New("a value ends before it starts")
		}
		return false, typeError(tok, kind, path)
	}
	return true, nil
}

// stringOf reads a string at path (a null is "").
func stringOf(dec *json.Decoder, path string) (string, error) {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", typeError(tok, reflect.TypeFor[string](), path)
	}
	return s, nil
}

// typeError is encoding/json's error of a value tok at path where the
// API has a value of Go type want.
func typeError(tok json.Token, want reflect.Type, path string) error {
	value := "object"
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			value = "array"
		}
	case string:
		value = "string"
	case json.Number:
		value = "number"
	case bool:
		value = "bool"
	}
	return &json.UnmarshalTypeError{Value: value, Type: want, Field: path}
}

// skip reads one value, token by token: none of it is kept.
func skip(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
		if depth < 0 {
			return errors.New("a value ends before it starts")
		}
	}
}
