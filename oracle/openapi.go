package oracle

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/internal/openapidoc"
	"github.com/intentd/intentd/oracle/oracleapi"
	"github.com/intentd/intentd/web"
)

// schemas generates the JSON schemas of the oracle's types (internal/openapidoc). The same
// schema validates the requests (handle) and the answers of peers (endpoint.decode) and is
// published in the OpenAPI document, so what is documented is what is enforced. Amounts are
// decimal strings; a field is required unless its json tag says omitempty; `minimum` tags bound
// integers.
var schemas = openapidoc.Generator{Types: map[reflect.Type]func() *openapi3.Schema{
	reflect.TypeFor[oracleapi.Amount](): func() *openapi3.Schema {
		return openapidoc.String(openapidoc.PatternUint, "non-negative integer in the currency's smallest unit, as a decimal string")
	},
}}

func schemaFor(v any) (*openapi3.Schema, error) { return schemas.Schema(v) }

// variantComponent names the components of a route's variant of a family: "SolanaDepositoryDeposits"
// for the Solana variant (family "Solana") of /attestations/depository-deposits/v1.
func variantComponent(family, path string) string {
	name := family
	for _, part := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(path, "/attestations/"), "/v1"), "-") {
		if part != "" {
			name += strings.ToUpper(part[:1]) + part[1:]
		}
	}
	return name
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
				"Without a valid x-api-key requests are rate limited per client IP; force needs a valid key, and requestPeerSignatures " +
				"gathers the peers' signatures only for a caller with a valid key (a keyless caller gets the local attestation)."},
		Paths: openapi3.NewPaths(),
		Components: &openapi3.Components{
			Schemas: openapi3.Schemas{"Error": openapi3.NewSchemaRef("", errSchema)},
			SecuritySchemes: openapi3.SecuritySchemes{"apiKey": &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
				Type: "apiKey", In: "header", Name: oracleapi.HeaderAPIKey,
				Description: "Optional. A valid key bypasses the unauthenticated rate limit, authorizes force and has requestPeerSignatures gather the peers' signatures."}}},
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
		for _, v := range []struct {
			variant        *endpoint
			family, vmType string
		}{{e.svm, "Solana", oracleapi.VMFamilySolana}, {e.perps, "Perps", "perps exchange (" + oracleapi.VMTypePerps + ")"}} {
			if v.variant == nil {
				continue
			}
			// A variant's schemas validate its bodies and its peers' answers. The operation
			// publishes the EVM shapes (a client generated from it keeps them); the variants'
			// are published as components, named in the operation's description
			// (docs/oracle.md, "Solana chains", "Perps exchange chains").
			if v.variant.requestSchema, err = schemaFor(v.variant.request); err != nil {
				return nil, err
			}
			if v.variant.responseSchema, err = schemaFor(v.variant.response); err != nil {
				return nil, err
			}
			name := variantComponent(v.family, e.path)
			doc.Components.Schemas[name+"Request"] = openapi3.NewSchemaRef("", v.variant.requestSchema)
			doc.Components.Schemas[name+"Response"] = openapi3.NewSchemaRef("", v.variant.responseSchema)
			e.description += " For a " + v.vmType + " chainId the body is #/components/schemas/" + name + "Request and the answer " +
				name + "Response (" + v.variant.description + ")."
		}
		if e.requestSchema, err = schemaFor(e.request); err != nil {
			return nil, err
		}
		if e.responseSchema, err = schemaFor(e.response); err != nil {
			return nil, err
		}
		responses := jsonOK("One signed EIP-712 message per attested fact, and the domain they are signed under", e.responseSchema)
		byStatus := map[int][]string{}
		for _, code := range append([]string{oracleapi.CodeInvalidRequest, oracleapi.CodeUnknownChain, oracleapi.CodeRateLimited,
			oracleapi.CodeChainUnavailable, oracleapi.CodeInternal, oracleapi.CodeTooManyEvents}, e.errors...) {
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

func (s *Server) openAPI(c *gin.Context) { openapidoc.ServeJSON(c.Writer, s.openAPIJSON) }

func marshalOpenAPI(doc *openapi3.T) ([]byte, error) { return json.MarshalIndent(doc, "", "  ") }

// documentation is the interactive reference (openapidoc.Viewer): the OpenAPI viewer embedded in
// the binary (package web), so the oracle's reference works without outside network.
var documentation = openapidoc.MustViewer(web.Docs(), "Attestation oracle", oracleapi.PathDocumentation)

func (s *Server) documentationPage(c *gin.Context) { documentation.ServePage(c.Writer) }

// documentationAsset serves the viewer's script, stylesheet and licence.
func (s *Server) documentationAsset(c *gin.Context) {
	if !documentation.ServeAsset(c.Writer, c.Param("file")) {
		writeError(c, oracleapi.Errorf(oracleapi.CodeNotFound, "no asset %s", c.Param("file")))
	}
}
