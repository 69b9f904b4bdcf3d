package openapidoc

import (
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

type testQuery struct {
	Chain uint64   `query:"chain,required" minimum:"1"`
	IDs   []uint64 `query:"ids" minimum:"1"`
	Term  string   `query:"term" pattern:"^[a-z]+$"`
	On    bool     `query:"on"`
}

// A query parameter is bound and checked by the schema it is documented with.
func TestQueryParametersAreCheckedByTheSchemaTheyAreDocumentedWith(t *testing.T) {
	q := Generator{NullAsType: true}.MustQuery(testQuery{})
	var got testQuery
	if err := q.Bind(url.Values{"chain": {"5"}, "ids": {"1,2", "3"}, "term": {"abc"}, "on": {"true"}, "other": {"x"}}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Chain != 5 || len(got.IDs) != 3 || got.IDs[2] != 3 || got.Term != "abc" || !got.On {
		t.Fatalf("bound %+v", got)
	}
	for _, tc := range []struct {
		values url.Values
		param  string
	}{
		{url.Values{}, "chain"},
		{url.Values{"chain": {"0"}}, "chain"},
		{url.Values{"chain": {"x"}}, "chain"},
		{url.Values{"chain": {"1", "2"}}, "chain"},
		{url.Values{"chain": {"1"}, "ids": {"1,0"}}, "ids"},
		{url.Values{"chain": {"1"}, "ids": {"1,,2"}}, "ids"},
		{url.Values{"chain": {"1"}, "term": {"ABC"}}, "term"},
		{url.Values{"chain": {"1"}, "on": {"yes"}}, "on"},
	} {
		err := q.Bind(tc.values, &testQuery{})
		if pe, ok := err.(*ParamError); !ok || pe.Name != tc.param {
			t.Errorf("%v: %v, want a problem with %s", tc.values, err, tc.param)
		}
	}
	params := q.Parameters()
	if len(params) != 4 || !params[0].Value.Required || params[0].Value.Schema.Value.Min == nil ||
		!params[1].Value.Schema.Value.Type.Is(openapi3.TypeArray) || params[1].Value.Explode == nil || *params[1].Value.Explode {
		t.Fatalf("parameters: %+v", params)
	}
}

type testBody struct {
	Name    string  `json:"name" required:"true"`
	Note    *string `json:"note"`
	Count   int     `json:"count,omitempty"`
	Anymore any     `json:"anymore"`
}

// An answer's pointer without omitempty may be null, a request's field is required only when
// tagged, and a value of any type may be null too (OpenAPI 3.1).
func TestSchemasSayWhatIsRequiredAndWhatMayBeNull(t *testing.T) {
	answer := Generator{NullAsType: true}.MustSchema(testBody{})
	if strings.Join(answer.Required, ",") != "name,note,anymore" || !answer.Properties["note"].Value.Type.Includes(openapi3.TypeNull) ||
		!answer.Properties["anymore"].Value.Type.Includes(openapi3.TypeNull) {
		t.Fatalf("answer: required %v, note %v", answer.Required, answer.Properties["note"].Value.Type)
	}
	request := Generator{NullAsType: true, Requests: true}.MustSchema(testBody{})
	if strings.Join(request.Required, ",") != "name" {
		t.Fatalf("request: required %v", request.Required)
	}
	if err := ValidateJSON(request, []byte(`{"name": "x", "note": null, "count": 2}`)); err != nil {
		t.Fatal(err)
	}
	if err := ValidateJSON(request, []byte(`{"note": "x"}`)); err == nil || !strings.Contains(err.Error(), "name") {
		t.Fatalf("missing name: %v", err)
	}
}
