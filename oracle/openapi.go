package oracle

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/oracle/oracleapi"
)

var (
	addressType = reflect.TypeFor[common.Address]()
	hashType    = reflect.TypeFor[common.Hash]()
	bytesType   = reflect.TypeFor[hexutil.Bytes]()
	amountType  = reflect.TypeFor[oracleapi.Amount]()
	bigIntType  = reflect.TypeFor[big.Int]()
)

// schemaFor generates the JSON schema of v's type with openapi3gen. The same schema validates
// the requests (handle) and the answers of peers (endpoint.decode) and is published in the
// OpenAPI document, so what is documented is what is enforced. The wire forms of the Ethereum
// types replace their Go forms: addresses, hashes and byte strings are 0x-hex strings, amounts
// decimal strings. A field is required unless its json tag says omitempty; `minimum` tags bound
// integers.
func schemaFor(v any) (*openapi3.Schema, error) {
	ref, err := openapi3gen.NewSchemaRefForValue(v, nil, openapi3gen.ThrowErrorOnCycle(),
		openapi3gen.SchemaCustomizer(func(_ string, t reflect.Type, tag reflect.StructTag, s *openapi3.Schema) error {
			s.Nullable = false
			str := func(pattern, description string) {
				*s = openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Pattern: pattern, Description: description}
			}
			switch t {
			case addressType:
				str(`^0x[0-9a-fA-F]{40}$`, "20-byte address, 0x-hex")
			case hashType:
				str(`^0x[0-9a-fA-F]{64}$`, "32 bytes, 0x-hex")
			case bytesType:
				str(`^0x([0-9a-fA-F]{2})*$`, "bytes, 0x-hex")
			case amountType, bigIntType:
				str(`^[0-9]{1,78}$`, "non-negative integer in the currency's smallest unit, as a decimal string")
			}
			if m := tag.Get("minimum"); m != "" {
				f, err := strconv.ParseFloat(m, 64)
				if err != nil {
					return err
				}
				s.Min = &f
			}
			if t.Kind() == reflect.Struct && t != amountType && t != bigIntType {
				s.Required = nil
				for i := range t.NumField() {
					f := t.Field(i)
					name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
					if name == "" || name == "-" || strings.Contains(opts, "omitempty") {
						continue
					}
					s.Required = append(s.Required, name)
				}
			}
			return nil
		}))
	if err != nil {
		return nil, fmt.Errorf("schema of %T: %w", v, err)
	}
	return ref.Value, nil
}

// buildOpenAPI generates the schemas of every endpoint and the OpenAPI document that publishes
// them.
func buildOpenAPI(eps []*endpoint) (*openapi3.T, error) {
	errSchema, err := schemaFor(oracleapi.Error{})
	if err != nil {
		return nil, err
	}
	errSchema.Properties["code"].Value.Enum = nil
	for _, c := range oracleapi.ServerCodes() {
		errSchema.Properties["code"].Value.Enum = append(errSchema.Properties["code"].Value.Enum, c)
	}
	chainsSchema, err := schemaFor(oracleapi.ChainsResponse{})
	if err != nil {
		return nil, err
	}
	doc := &openapi3.T{
		OpenAPI: "3.0.3",
		Info: &openapi3.Info{Title: "Attestation oracle", Version: "1",
			Description: "Reads facts from chains and signs them as EIP-712 messages (docs/oracle.md). Errors are {message, code}. " +
				"Without a valid x-api-key requests are rate limited per client IP; force needs a valid key."},
		Paths: openapi3.NewPaths(),
		Components: &openapi3.Components{
			Schemas: openapi3.Schemas{"Error": openapi3.NewSchemaRef("", errSchema)},
			SecuritySchemes: openapi3.SecuritySchemes{"apiKey": &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
				Type: "apiKey", In: "header", Name: oracleapi.HeaderAPIKey,
				Description: "Optional. A valid key bypasses the unauthenticated rate limit and authorizes force."}}},
		},
	}
	errorResponse := func(codes ...string) *openapi3.ResponseRef {
		desc := "Error"
		if len(codes) > 0 {
			desc = "Error: " + strings.Join(codes, ", ")
		}
		return &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription(desc).
			WithContent(openapi3.NewContentWithJSONSchemaRef(openapi3.NewSchemaRef("#/components/schemas/Error", nil)))}
	}
	jsonOK := func(desc string, s *openapi3.Schema) *openapi3.Responses {
		r := openapi3.NewResponses()
		r.Set("200", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription(desc).WithJSONSchema(s)})
		return r
	}
	lives := openapi3.NewObjectSchema().WithProperty("status", openapi3.NewStringSchema().WithEnum("ok"))
	op := &openapi3.Operation{Summary: "Health", OperationID: "lives", Responses: jsonOK("Healthy", lives)}
	doc.AddOperation(oracleapi.PathLives, http.MethodGet, op)
	op = &openapi3.Operation{Summary: "Chains enabled for this environment", OperationID: "chains", Responses: jsonOK("Chains", chainsSchema)}
	op.Responses.Set("429", errorResponse(oracleapi.CodeRateLimited))
	doc.AddOperation(oracleapi.PathChains, http.MethodGet, op)

	for _, e := range eps {
		if e.requestSchema, err = schemaFor(e.request); err != nil {
			return nil, err
		}
		if e.responseSchema, err = schemaFor(e.response); err != nil {
			return nil, err
		}
		responses := jsonOK("One signed EIP-712 message per attested fact, and the domain they are signed under", e.responseSchema)
		byStatus := map[int][]string{}
		for _, code := range append([]string{oracleapi.CodeInvalidRequest, oracleapi.CodeUnknownChain, oracleapi.CodeRateLimited,
			oracleapi.CodeChainUnavailable, oracleapi.CodeInternal}, e.errors...) {
			status := oracleapi.Errorf(code, "").Status
			if !slices.Contains(byStatus[status], code) {
				byStatus[status] = append(byStatus[status], code)
			}
		}
		for status, codes := range byStatus {
			responses.Set(strconv.Itoa(status), errorResponse(codes...))
		}
		doc.AddOperation(e.path, http.MethodPost, &openapi3.Operation{
			Summary: e.summary, Description: e.description, OperationID: strings.Trim(strings.ReplaceAll(e.path, "/", "-"), "-"),
			RequestBody: &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(true).WithJSONSchema(e.requestSchema)},
			Responses:   responses,
			Security:    &openapi3.SecurityRequirements{{}, {"apiKey": []string{}}},
		})
	}
	return doc, nil
}

func (s *Server) openAPI(c *gin.Context) {
	c.Data(http.StatusOK, "application/json", s.openAPIJSON)
}

func marshalOpenAPI(doc *openapi3.T) ([]byte, error) { return json.MarshalIndent(doc, "", "  ") }

// documentationPage is the interactive reference: a page without outside assets (the oracle
// must work without outside network; a Content-Security-Policy keeps it so) that reads the
// OpenAPI document, shows every operation with its schemas and sends a request from a form.
func (s *Server) documentationPage(c *gin.Context) {
	c.Header("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
	c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(documentationHTML))
}

const documentationHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Attestation oracle</title>
<style>
body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}
details{border:1px solid #ccc;border-radius:4px;margin:.5em 0;padding:.3em .8em}
summary{cursor:pointer}.m{display:inline-block;width:4em;font-weight:bold}
pre,textarea{background:#f6f6f6;padding:.5em;font-size:.85em;overflow:auto}textarea{width:100%;height:10em}
</style></head><body>
<h1>Attestation oracle</h1>
<p>The OpenAPI document is <a href="/documentation/openapi.json"><code>/documentation/openapi.json</code></a>.
Open an operation to see its schemas and send a request to this oracle.</p>
<p><label>x-api-key (optional) <input id="key" type="password" autocomplete="off"></label></p>
<div id="ops">Loading…</div>
<script>
function example(s){
  if(!s)return null;
  if(s.type==="object"){const o={};for(const[k,v]of Object.entries(s.properties||{}))o[k]=example(v);return o}
  if(s.type==="array")return[example(s.items)];
  if(s.type==="integer")return s.minimum||0;
  if(s.type==="boolean")return false;
  if(s.pattern&&s.pattern.indexOf("{40}")>0)return"0x"+"0".repeat(40);
  if(s.pattern&&s.pattern.indexOf("{64}")>0)return"0x"+"0".repeat(64);
  if(s.pattern&&s.pattern.indexOf("[0-9]{1,78}")>0)return"0";
  return"";
}
function el(tag,text){const e=document.createElement(tag);if(text!==undefined)e.textContent=text;return e}
fetch("/documentation/openapi.json").then(r=>r.json()).then(doc=>{
  const ops=document.getElementById("ops");ops.textContent="";
  for(const[path,item]of Object.entries(doc.paths)){
    for(const[method,op]of Object.entries(item)){
      const d=el("details"),sm=el("summary");
      const m=el("span",method.toUpperCase());m.className="m";sm.append(m,el("code",path)," — "+(op.summary||""));d.append(sm);
      if(op.description)d.append(el("p",op.description));
      let body=null;
      if(op.requestBody){const s=op.requestBody.content["application/json"].schema;
        d.append(el("h4","Request schema"),el("pre",JSON.stringify(s,null,2)));
        body=el("textarea");body.value=JSON.stringify(example(s),null,2);d.append(el("h4","Request"),body)}
      d.append(el("h4","Responses"));
      for(const[st,r]of Object.entries(op.responses)){const c=r.content&&r.content["application/json"];
        d.append(el("p",st+": "+(r.description||"")));if(c&&c.schema&&!c.schema.$ref)d.append(el("pre",JSON.stringify(c.schema,null,2)))}
      const out=el("pre"),btn=el("button","Send");
      btn.onclick=()=>{const h={"Content-Type":"application/json"},k=document.getElementById("key").value;if(k)h["x-api-key"]=k;
        fetch(path,{method:method.toUpperCase(),headers:h,body:body?body.value:undefined})
          .then(async r=>{out.textContent=r.status+" "+r.statusText+"\n"+JSON.stringify(await r.json(),null,2)})
          .catch(e=>{out.textContent=String(e)})};
      d.append(btn,out);ops.append(d);
    }
  }
  const e=el("details"),s=el("summary","Error body");e.append(s,el("pre",JSON.stringify(doc.components.schemas.Error,null,2)));ops.append(e);
});
</script></body></html>`
