package openapidoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// ValidateJSON checks raw, one JSON value, against schema and describes the first problem by its
// place in the document, never by echoing the value (it may be anything the caller sent). opts
// are kin-openapi's (openapi3.EnableJSONSchema2020 for an OpenAPI 3.1 document's schemas).
func ValidateJSON(schema *openapi3.Schema, raw []byte, opts ...openapi3.SchemaValidationOption) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return errors.New(JSONProblem(err))
	}
	if dec.More() {
		return errors.New("body must hold a single JSON value")
	}
	v = numbersToFloat(v)
	if err := schema.VisitJSON(v, append([]openapi3.SchemaValidationOption{openapi3.MultiErrors()}, opts...)...); err != nil {
		return errors.New(SchemaProblem(err))
	}
	return nil
}

// numbersToFloat turns json.Number into float64, the form kin-openapi validates, after the
// decoder has kept integers exact enough to be checked as integers.
func numbersToFloat(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbersToFloat(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbersToFloat(e)
		}
	}
	return v
}

// SchemaProblem is the first problem of a schema validation error, by its place in the value.
func SchemaProblem(err error) string {
	var multi openapi3.MultiError
	if errors.As(err, &multi) && len(multi) > 0 {
		err = multi[0]
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		where := strings.Join(se.JSONPointer(), ".")
		if where == "" {
			return se.Reason
		}
		return where + ": " + se.Reason
	}
	return "does not match the schema"
}

// JSONProblem describes a decoding error without echoing the body back.
func JSONProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	var maxErr *http.MaxBytesError
	switch {
	case errors.Is(err, io.EOF):
		return "empty body"
	case errors.As(err, &maxErr):
		return "body too large"
	case errors.As(err, &typeErr):
		return fmt.Sprintf("field %s has the wrong type", typeErr.Field)
	default:
		return "malformed JSON"
	}
}
