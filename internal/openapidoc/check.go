package openapidoc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Checker holds a service's document as a client loads it, so that tests can check the
// service's real answers against it with kin-openapi's response validation (openapi3filter).
type Checker struct {
	Doc *openapi3.T
}

// NewChecker loads a served document (its references resolved) and validates it as OpenAPI.
func NewChecker(ctx context.Context, raw []byte) (*Checker, error) {
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	return &Checker{Doc: doc}, nil
}

// Operation is the documented operation of method on path (OpenAPI's form, /a/{id}); nil when
// the document has none.
func (c *Checker) Operation(method, path string) *openapi3.Operation {
	item := c.Doc.Paths.Value(path)
	if item == nil {
		return nil
	}
	return item.GetOperation(strings.ToUpper(method))
}

// Check validates one answer of the operation of req's method on path: its status must be
// documented, and a JSON body must match the status's schema (other media are checked for
// their status only). An error says what does not match.
func (c *Checker) Check(ctx context.Context, req *http.Request, path string, status int, header http.Header, body []byte) error {
	op := c.Operation(req.Method, path)
	if op == nil {
		return fmt.Errorf("%s %s is not documented", req.Method, path)
	}
	route := &routers.Route{Spec: c.Doc, Path: path, PathItem: c.Doc.Paths.Value(path), Method: req.Method, Operation: op}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true,
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	if !strings.Contains(header.Get("Content-Type"), "json") {
		opts.ExcludeResponseBody = true
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: route, Options: opts},
		Status:                 status, Header: header, Body: io.NopCloser(bytes.NewReader(body)), Options: opts,
	}
	return openapi3filter.ValidateResponse(ctx, in)
}
