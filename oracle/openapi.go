package oracle

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// openAPIDocument is the machine-readable reference of the implemented endpoints. It is kept
// short on purpose; docs/oracle.md is the narrative reference.
const openAPIDocument = `{
  "openapi": "3.1.0",
  "info": {"title": "Attestation oracle", "version": "1"},
  "paths": {
    "/lives/v1": {"get": {"summary": "Health", "responses": {"200": {"description": "Healthy",
      "content": {"application/json": {"schema": {"type": "object", "properties": {"status": {"const": "ok"}}}}}}}}},
    "/chains/v1": {"get": {"summary": "Chains enabled for this environment", "responses": {"200": {"description": "Chains",
      "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Chains"}}}},
      "429": {"$ref": "#/components/responses/Error"}}}},
    "/attestations/depository-deposits/v1": {"post": {"summary": "Attest the Deposit events of a transaction",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DepositRequest"}}}},
      "responses": {
        "200": {"description": "One signed EIP-712 message per Deposit event",
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DepositAttestation"}}}},
        "400": {"$ref": "#/components/responses/Error"},
        "404": {"$ref": "#/components/responses/Error"},
        "409": {"$ref": "#/components/responses/Error"},
        "422": {"$ref": "#/components/responses/Error"},
        "429": {"$ref": "#/components/responses/Error"},
        "503": {"$ref": "#/components/responses/Error"}}}},
    "/attestations/depository-withdrawals/v1": {"post": {"summary": "Not implemented yet", "responses": {"501": {"$ref": "#/components/responses/Error"}}}},
    "/attestations/solver-fills/v1": {"post": {"summary": "Not implemented yet", "responses": {"501": {"$ref": "#/components/responses/Error"}}}},
    "/attestations/solver-refunds/v1": {"post": {"summary": "Not implemented yet", "responses": {"501": {"$ref": "#/components/responses/Error"}}}},
    "/attestations/withdrawal-initiation/v1": {"post": {"summary": "Not implemented yet", "responses": {"501": {"$ref": "#/components/responses/Error"}}}},
    "/attestations/withdrawal-initiated/v1": {"post": {"summary": "Not implemented yet", "responses": {"501": {"$ref": "#/components/responses/Error"}}}}
  },
  "components": {
    "securitySchemes": {"apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key",
      "description": "Optional. A valid key bypasses the unauthenticated rate limit."}},
    "responses": {"Error": {"description": "Error",
      "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}},
    "schemas": {
      "Error": {"type": "object", "required": ["message", "code"], "properties": {
        "message": {"type": "string"},
        "code": {"type": "string", "enum": ["INVALID_REQUEST", "UNKNOWN_CHAIN", "TRANSACTION_NOT_FOUND",
          "TRANSACTION_NOT_CONFIRMED", "TRANSACTION_REVERTED", "NO_DEPOSIT_EVENTS", "CHAIN_UNAVAILABLE",
          "RATE_LIMITED", "NOT_IMPLEMENTED", "NOT_FOUND", "INTERNAL_ERROR"]}}},
      "Chains": {"type": "object", "properties": {"chains": {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"}, "vmType": {"type": "string"},
        "depository": {"type": "string"}, "confirmations": {"type": "integer"}}}}}},
      "DepositRequest": {"type": "object", "required": ["chainId", "transactionId"], "properties": {
        "chainId": {"type": "integer", "minimum": 1},
        "transactionId": {"type": "string", "pattern": "^0x[0-9a-fA-F]{64}$"},
        "requestPeerSignatures": {"type": "boolean", "description": "Accepted; peer aggregation is not implemented yet"}}},
      "DepositData": {"type": "object", "properties": {
        "chainId": {"type": "integer"}, "depository": {"type": "string"}, "transactionId": {"type": "string"},
        "logIndex": {"type": "integer"}, "blockNumber": {"type": "integer", "description": "not signed"},
        "blockHash": {"type": "string", "description": "not signed"}, "orderId": {"type": "string"},
        "depositor": {"type": "string"}, "currency": {"type": "string", "description": "zero address for the native currency"},
        "amount": {"type": "string", "description": "decimal integer in the smallest unit"}}},
      "DepositAttestation": {"type": "object", "properties": {
        "messages": {"type": "array", "items": {"type": "object", "properties": {
          "data": {"$ref": "#/components/schemas/DepositData"},
          "signatures": {"type": "array", "items": {"type": "object", "properties": {
            "signer": {"type": "string"}, "signature": {"type": "string", "description": "65 bytes r||s||v, v in {27,28}"}}}}}}},
        "domain": {"type": "object", "properties": {"name": {"const": "ServiceOracle"}, "version": {"const": "1"}}}},
        "description": "Each message is signed as EIP-712 typed data, primary type DepositoryDeposit(uint256 chainId,address depository,bytes32 transactionId,uint256 logIndex,bytes32 orderId,address depositor,address currency,uint256 amount), domain {name, version} only."}
    }
  }
}`

// documentationHTML is a static page (no scripts, no outside assets: the oracle must work
// without outside network) that points at the OpenAPI document.
const documentationHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Attestation oracle</title>
<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}td,th{padding:.2em 1em;text-align:left}code{background:#eee}</style>
</head><body>
<h1>Attestation oracle</h1>
<p>OpenAPI 3.1 document: <a href="/documentation/openapi.json"><code>/documentation/openapi.json</code></a>.
Errors are JSON <code>{"message", "code"}</code>. Without a valid <code>x-api-key</code> header,
requests are rate limited per client IP.</p>
<table>
<tr><th>Method</th><th>Path</th><th>Purpose</th></tr>
<tr><td>GET</td><td><code>/lives/v1</code></td><td>health: <code>{"status":"ok"}</code></td></tr>
<tr><td>GET</td><td><code>/chains/v1</code></td><td>enabled chains: <code>{"chains":[{id,name,vmType,depository,confirmations}]}</code></td></tr>
<tr><td>POST</td><td><code>/attestations/depository-deposits/v1</code></td><td>attest the Deposit events of a transaction:
<code>{"chainId":1,"transactionId":"0x…"}</code></td></tr>
<tr><td>POST</td><td><code>/attestations/…</code> (withdrawals, solver fills and refunds, withdrawal initiation/initiated)</td><td>501, not implemented yet</td></tr>
</table>
</body></html>`

func (s *Server) documentationPage(c *gin.Context) {
	c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(documentationHTML))
}

func (s *Server) openAPI(c *gin.Context) {
	c.Data(http.StatusOK, "application/json", []byte(openAPIDocument))
}
