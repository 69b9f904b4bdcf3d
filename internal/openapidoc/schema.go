// Package openapidoc publishes an HTTP service's OpenAPI document from the Go types its
// handlers decode and encode, with kin-openapi: JSON schemas generated from structs
// (openapi3gen), query parameters bound and checked by the same schemas they are documented
// with (BindQuery), request bodies validated against the schema they are documented with
// (ValidateJSON), and the interactive reference that renders the document without any outside
// asset (Viewer: the OpenAPI viewer package web builds and embeds, Swagger UI). The API and the
// oracle both serve their /documentation through it, so what a reference shows is what the
// service enforces.
package openapidoc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"
	"github.com/shopspring/decimal"
)

// Generator makes the JSON schema of a Go type as encoding/json writes it. A field is required
// unless its json tag says omitempty; struct tags add constraints and prose: `minimum` and
// `maximum` (numbers), `pattern`, `enum` (comma-separated), `format` and `doc` (the
// description). Types whose wire form is not their Go shape are written as they travel:
// addresses, hashes and byte strings as 0x-hex strings, big integers and decimals as decimal
// strings, json.Number as a number, durations as Go duration strings when listed in Types.
type Generator struct {
	// Types replaces the schema of the listed types (a wire form of the caller's own).
	Types map[reflect.Type]func() *openapi3.Schema
	// NullAsType writes "may be null" the OpenAPI 3.1 way, a "null" among the types, for a
	// pointer without omitempty (encoding/json writes null for nil there). Without it (OpenAPI
	// 3.0, the oracle's document) nothing is nullable.
	NullAsType bool
	// Requests makes schemas of what a handler decodes rather than encodes: a field is
	// required only with a `required:"true"` tag (a decoder requires nothing itself), and a
	// pointer may be null whatever its json tag (the decoder takes null as nil).
	Requests bool
}

var (
	addressType    = reflect.TypeFor[common.Address]()
	hashType       = reflect.TypeFor[common.Hash]()
	bytesType      = reflect.TypeFor[hexutil.Bytes]()
	bigIntType     = reflect.TypeFor[big.Int]()
	decimalType    = reflect.TypeFor[decimal.Decimal]()
	timeType       = reflect.TypeFor[time.Time]()
	jsonNumberType = reflect.TypeFor[json.Number]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
)

// anyValue is the schema of a value of any JSON type (an interface, json.RawMessage). With
// NullAsType it lists every type, null included: kin-openapi's validator refuses null against
// an empty schema in OpenAPI 3.1.
func (g Generator) anyValue() *openapi3.Schema {
	if !g.NullAsType {
		return &openapi3.Schema{}
	}
	return &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeNull, openapi3.TypeBoolean, openapi3.TypeObject,
		openapi3.TypeArray, openapi3.TypeNumber, openapi3.TypeString}}
}

// String is a string schema with a pattern and a description.
func String(pattern, description string) *openapi3.Schema {
	return &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Pattern: pattern, Description: description}
}

// Patterns of the common wire forms.
const (
	PatternAddress = `^0x[0-9a-fA-F]{40}$`
	PatternHash    = `^0x[0-9a-fA-F]{64}$`
	PatternBytes   = `^0x([0-9a-fA-F]{2})*$`
	PatternUint    = `^[0-9]{1,78}$`
	PatternDecimal = `^-?[0-9]+(\.[0-9]+)?$`
)

func (g Generator) known(t reflect.Type) *openapi3.Schema {
	if f, ok := g.Types[t]; ok {
		return f()
	}
	switch t {
	case addressType:
		return String(PatternAddress, "20-byte address, 0x-hex")
	case hashType:
		return String(PatternHash, "32 bytes, 0x-hex")
	case bytesType:
		return String(PatternBytes, "bytes, 0x-hex")
	case bigIntType:
		return String(PatternUint, "non-negative integer in the currency's smallest unit, as a decimal string")
	case decimalType:
		return String(PatternDecimal, "decimal number as a string")
	case timeType:
		s := String("", "RFC 3339 time")
		s.Format = "date-time"
		return s
	case jsonNumberType:
		return &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeNumber}}
	case rawMessageType:
		return g.anyValue()
	}
	if t.Kind() == reflect.Interface {
		return g.anyValue()
	}
	return nil
}

// Schema generates the schema of v's type.
func (g Generator) Schema(v any) (*openapi3.Schema, error) {
	ref, err := openapi3gen.NewSchemaRefForValue(v, nil, openapi3gen.ThrowErrorOnCycle(),
		openapi3gen.SchemaCustomizer(func(_ string, t reflect.Type, tag reflect.StructTag, s *openapi3.Schema) error {
			nullable := s.Nullable
			s.Nullable = false
			if k := g.known(t); k != nil {
				*s = *k
			} else if t.Kind() == reflect.Struct {
				s.Required = requiredFields(t, g.Requests)
			}
			if err := applyTags(tag, s); err != nil {
				return err
			}
			if nullable && g.NullAsType && (g.Requests || !strings.Contains(tag.Get("json"), "omitempty")) && s.Type != nil {
				s.Type = &openapi3.Types{(*s.Type)[0], openapi3.TypeNull}
			}
			return nil
		}))
	if err != nil {
		return nil, fmt.Errorf("schema of %T: %w", v, err)
	}
	return ref.Value, nil
}

// MustSchema is Schema for types known to generate (the service's own, checked by its tests).
func (g Generator) MustSchema(v any) *openapi3.Schema {
	s, err := g.Schema(v)
	if err != nil {
		panic(err)
	}
	return s
}

// requiredFields are the json names of t's fields encoding/json always writes: those without
// omitempty, embedded structs' included; for a request, those tagged required.
func requiredFields(t reflect.Type, request bool) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, requiredFields(et, request)...)
			}
			continue
		}
		if !f.IsExported() || name == "-" || !request && strings.Contains(opts, "omitempty") || request && f.Tag.Get("required") != "true" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// applyTags adds a field's constraint tags to its schema.
func applyTags(tag reflect.StructTag, s *openapi3.Schema) error {
	for _, b := range []struct {
		name string
		dst  **float64
	}{{"minimum", &s.Min}, {"maximum", &s.Max}} {
		if v := tag.Get(b.name); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%s tag %q: %w", b.name, v, err)
			}
			*b.dst = &f
		}
	}
	if v := tag.Get("pattern"); v != "" {
		s.Pattern = v
	}
	if v := tag.Get("format"); v != "" {
		s.Format = v
	}
	if v := tag.Get("doc"); v != "" {
		s.Description = v
	}
	if v := tag.Get("enum"); v != "" {
		target := s
		if s.Items != nil && s.Items.Value != nil {
			target = s.Items.Value // a list's enum names its items
		}
		target.Enum = nil
		for e := range strings.SplitSeq(v, ",") {
			target.Enum = append(target.Enum, e)
		}
	}
	return nil
}
