package api

import (
	"github.com/gin-gonic/gin"
)

// removed are the endpoints the spec lists as removed (Versioning 4), each answered 404 with a
// JSON body naming what replaces it.
var removed = []struct{ method, path, replacement string }{
	{"POST", "/execute/swap", "POST /quote/v2 (then execute its steps)"},
	{"GET", "/requests/:requestId/signature", "protocol data in POST /quote/v2 (includeProtocolData): recompute the order id from orderData"},
	{"GET", "/requests/:requestId/signature/v2", "protocol data in POST /quote/v2 (includeProtocolData): recompute the order id from orderData"},
}

// removedRoutes registers the removed endpoints.
func (s *Server) removedRoutes(r gin.IRoutes) {
	for _, e := range removed {
		r.Handle(e.method, e.path, func(c *gin.Context) {
			abort(c, &Error{Code: CodeRemoved, Message: e.method + " " + e.path + " was removed; use " + e.replacement})
		})
	}
}
