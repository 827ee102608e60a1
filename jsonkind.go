package qeval

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// JSONTypeProblem says, for people, what a JSON value of the wrong type should have
// been and what it was: "an array of strings, not a number".
func JSONTypeProblem(e *json.UnmarshalTypeError) string {
	return JSONWant(e.Type) + ", not " + JSONValueKind(e.Value)
}

// JSONValueKind names a JSON value kind as encoding/json reports it ("number",
// "string", "object"...), with its article.
func JSONValueKind(v string) string {
	switch v {
	case "object", "array":
		return "an " + v
	case "":
		return "this value"
	}
	return "a " + v
}

// JSONWant names the JSON a Go type expects, for people.
func JSONWant(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Map {
			return "an array of objects"
		}
		if t.Elem().Kind() == reflect.String {
			return "an array of strings"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// JSONKind names the kind of a JSON value as encoding/json does ("string", "number",
// "object", "array", "bool", "null"); "" for no value.
func JSONKind(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}
