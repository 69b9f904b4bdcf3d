package openapidoc

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Query is a handler's query parameters, described once by a struct: each field with a
// `query:"name"` tag (`query:"name,required"` for one that must be given) is a parameter whose
// schema is the field's (Generator.Schema, with the field's constraint tags). Bind parses and
// checks a request's values with those very schemas, and Parameters publishes them, so the
// document and the handler cannot disagree. Fields may be strings, booleans, integers, or
// slices of strings or integers (a comma-separated list, repeated parameters joined).
type Query struct {
	typ    reflect.Type
	fields []queryField
	opts   []openapi3.SchemaValidationOption
}

type queryField struct {
	index    int
	name     string
	required bool
	schema   *openapi3.Schema
}

// Query describes the query parameters of v's type, a struct (or a pointer to one). opts are
// the schema validation options Bind checks with (openapi3.EnableJSONSchema2020 for 3.1).
func (g Generator) Query(v any, opts ...openapi3.SchemaValidationOption) (*Query, error) {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	q := &Query{typ: t, opts: opts}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("query")
		if !ok {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		switch k := f.Type.Kind(); {
		case k == reflect.Slice && !scalarKind(f.Type.Elem().Kind()), k != reflect.Slice && !scalarKind(k):
			return nil, fmt.Errorf("query parameter %s: %s is not a scalar or a list of scalars", name, f.Type)
		}
		s, err := g.Schema(reflect.Zero(f.Type).Interface())
		if err != nil {
			return nil, err
		}
		if f.Type.Kind() == reflect.Slice && s.Items != nil && s.Items.Value != nil {
			if err := applyTags(f.Tag, s.Items.Value); err != nil {
				return nil, err
			}
			if v := f.Tag.Get("doc"); v != "" {
				s.Description = v
			}
		} else if err := applyTags(f.Tag, s); err != nil {
			return nil, err
		}
		q.fields = append(q.fields, queryField{index: i, name: name, required: opt == "required", schema: s})
	}
	return q, nil
}

// MustQuery is Query for the service's own types (checked by its tests).
func (g Generator) MustQuery(v any, opts ...openapi3.SchemaValidationOption) *Query {
	q, err := g.Query(v, opts...)
	if err != nil {
		panic(err)
	}
	return q
}

func scalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// Parameters are the parameters as the OpenAPI document lists them. A list is written
// comma-separated (style form, explode false).
func (q *Query) Parameters() openapi3.Parameters {
	out := make(openapi3.Parameters, 0, len(q.fields))
	for _, f := range q.fields {
		p := &openapi3.Parameter{In: openapi3.ParameterInQuery, Name: f.name, Required: f.required,
			Description: f.schema.Description, Schema: openapi3.NewSchemaRef("", f.schema)}
		if f.schema.Type.Is(openapi3.TypeArray) {
			explode := false
			p.Style, p.Explode = openapi3.SerializationForm, &explode
		}
		out = append(out, &openapi3.ParameterRef{Value: p})
	}
	return out
}

// Names are the parameters' names.
func (q *Query) Names() []string {
	out := make([]string, len(q.fields))
	for i, f := range q.fields {
		out[i] = f.name
	}
	return out
}

// ParamError is a query parameter that is missing or does not match its schema.
type ParamError struct {
	Name, Reason string
}

func (e *ParamError) Error() string { return "query parameter " + e.Name + ": " + e.Reason }

// Bind parses values into dst, a pointer to the Query's struct, checking each value against its
// parameter's schema. Parameters the struct does not name are left alone. The first problem is a
// *ParamError; nothing of the value is echoed in it.
func (q *Query) Bind(values url.Values, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.Elem().Type() != q.typ {
		return fmt.Errorf("bind: %T is not *%s", dst, q.typ)
	}
	rv = rv.Elem()
	for _, f := range q.fields {
		raw := values[f.name]
		if len(raw) == 0 || len(raw) == 1 && raw[0] == "" {
			if f.required {
				return &ParamError{f.name, "is required"}
			}
			continue
		}
		fv := rv.Field(f.index)
		var doc any
		if fv.Kind() == reflect.Slice {
			parts := strings.Split(strings.Join(raw, ","), ",")
			items := make([]any, len(parts))
			list := reflect.MakeSlice(fv.Type(), len(parts), len(parts))
			for i, p := range parts {
				v, j, err := parseScalar(strings.TrimSpace(p), fv.Type().Elem())
				if err != nil {
					return &ParamError{f.name, "entry " + strconv.Itoa(i+1) + " " + err.Error()}
				}
				list.Index(i).Set(v)
				items[i] = j
			}
			fv.Set(list)
			doc = items
		} else {
			if len(raw) > 1 {
				return &ParamError{f.name, "is given more than once"}
			}
			v, j, err := parseScalar(raw[0], fv.Type())
			if err != nil {
				return &ParamError{f.name, err.Error()}
			}
			fv.Set(v)
			doc = j
		}
		if err := f.schema.VisitJSON(doc, append([]openapi3.SchemaValidationOption{openapi3.MultiErrors()}, q.opts...)...); err != nil {
			return &ParamError{f.name, SchemaProblem(err)}
		}
	}
	return nil
}

// parseScalar parses s as a value of t, and as the JSON value its schema checks.
func parseScalar(s string, t reflect.Type) (reflect.Value, any, error) {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		if s == "" {
			return v, nil, errors.New("is empty")
		}
		v.SetString(s)
		return v, s, nil
	case reflect.Bool:
		switch s {
		case "true":
			v.SetBool(true)
		case "false":
		default:
			return v, nil, errors.New("must be true or false")
		}
		return v, v.Bool(), nil
	case reflect.Int, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, t.Bits())
		if err != nil {
			return v, nil, errors.New("must be an integer")
		}
		v.SetInt(n)
		return v, float64(n), nil
	default: // unsigned
		n, err := strconv.ParseUint(s, 10, t.Bits())
		if err != nil {
			return v, nil, errors.New("must be a non-negative integer")
		}
		v.SetUint(n)
		return v, float64(n), nil
	}
}
