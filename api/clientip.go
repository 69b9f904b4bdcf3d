package api

import "github.com/gin-gonic/gin"

// trustProxies makes gin's ClientIP (the IP anonymous callers are limited by, and the one
// logs name) believe X-Forwarded-For only from s.TrustedProxies; from anyone else the header
// is ignored and the client is the connection's peer. X-Real-IP is never read: a proxy that
// sets X-Forwarded-For may pass a client's X-Real-IP through.
func (s *Server) trustProxies(r *gin.Engine) {
	r.RemoteIPHeaders = []string{"X-Forwarded-For"}
	if err := r.SetTrustedProxies(s.TrustedProxies); err != nil {
		s.Logger.Error("TRUSTED_PROXIES not applied: no proxy is trusted", "error", err)
		_ = r.SetTrustedProxies(nil)
	}
}
