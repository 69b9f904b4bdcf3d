package api

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/store"
)

// The integrator dashboard's JSON API (docs/dashboard.md), under /dashboard/api/ on the public
// listener: sign-in by password or one-time link, a session in a cookie, and behind it the
// team, the keys and their webhooks, as each role may. Its routes are rows of the route table
// (routes.go) of access accessDashboard (a live session, and on every change the session's CSRF
// token: dashboardGuard) or accessDashboardSignIn (the two sign-ins, no session yet). Every
// change is audited with the signed-in user as its actor (store.DashboardActor).

// Error codes of the dashboard.
const (
	// CodeDashboardUserNotFound is a user id that names none of the integrator's users.
	CodeDashboardUserNotFound = "DASHBOARD_USER_NOT_FOUND"
	// CodeDashboardUserExists is an email another dashboard user already signs in with.
	CodeDashboardUserExists = "DASHBOARD_USER_EXISTS"
	// CodeLastOwner is a change that would leave an integrator without an owner.
	CodeLastOwner = "LAST_OWNER"
)

// The session cookie, and how long sessions and one-time links last.
const (
	// DashboardCookie holds the session token: HttpOnly (no script reads it), Secure (browsers
	// treat http://localhost and http://127.0.0.1 as secure contexts, so a development server on
	// loopback needs nothing else), SameSite=Strict and Path=/dashboard (it goes nowhere else).
	DashboardCookie = "intentd_dashboard"
	// DashboardCSRFHeader carries the session's CSRF token on every change (GET /dashboard/api/me
	// gives it).
	DashboardCSRFHeader = "X-CSRF-Token"
	dashboardCookiePath = "/dashboard"
	dashboardSessionTTL = 12 * time.Hour
	dashboardLinkTTL    = 30 * time.Minute
	// dashboardLinkPath is where a one-time link leads: the token in the fragment, which a
	// browser never sends to a server, so no request log or proxy sees it; the front end posts
	// it to POST /dashboard/api/session/link.
	dashboardLinkPath  = "/dashboard/#link="
	dashboardBodyLimit = 16 << 10
)

// Sign-in attempts are limited per email and per client (an IPv6 client by its /64), counted in
// Postgres so that every API process shares the count.
const (
	signInWindow   = 15 * time.Minute
	signInPerEmail = 5
	signInPerIP    = 20
)

// Context keys of a dashboard request's session.
const (
	ctxDashboardUser  = "dashboardUser"
	ctxDashboardToken = "dashboardToken"
)

// dashboardUser is the signed-in user of a request behind dashboardGuard.
func dashboardUser(c *gin.Context) *auth.DashboardUser {
	u, _ := c.Get(ctxDashboardUser)
	du, _ := u.(*auth.DashboardUser)
	return du
}

// dashboardActor is the audit trail's actor of the request's change.
func dashboardActor(c *gin.Context) store.Actor {
	return store.DashboardActor(dashboardUser(c), c.ClientIP())
}

// dashboardNoStore stands before the sign-in routes: their answers are never cached.
func dashboardNoStore(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	c.Next()
}

// dashboardGuard stands before every route of accessDashboard: the session cookie must name a
// live session (401 otherwise), and a request that is not a GET must carry the session's CSRF
// token in X-CSRF-Token (403 otherwise). SameSite=Strict already keeps the cookie off other
// sites' requests; the token is the second lock, for browsers and paths where that is not so.
func (s *Server) dashboardGuard() gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Header("Cache-Control", "no-store")
		token, err := c.Cookie(DashboardCookie)
		if err != nil || !auth.WellFormedToken(token) {
			abort(c, &Error{Code: CodeUnauthorized, Message: "sign in first (no dashboard session)"})
			return
		}
		u, err := s.Store.DashboardSession(c.Request.Context(), auth.TokenHash(token))
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				abort(c, &Error{Code: CodeUnauthorized, Message: "the session has ended: sign in again"})
				return
			}
			s.dashboardStoreError(c, err, CodeUnauthorized)
			return
		}
		if c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead &&
			!auth.CSRFMatches(token, c.GetHeader(DashboardCSRFHeader)) {
			abort(c, &Error{Code: CodeForbidden, Message: "X-CSRF-Token must be the session's CSRF token (GET /dashboard/api/me)"})
			return
		}
		c.Set(ctxDashboardUser, u)
		c.Set(ctxDashboardToken, token)
		c.Next()
	}
}

// requireRole answers 403 unless the signed-in user's role is one of roles.
func requireRole(c *gin.Context, roles ...auth.Role) bool {
	u := dashboardUser(c)
	for _, r := range roles {
		if u.Role == r {
			return true
		}
	}
	abort(c, &Error{Code: CodeForbidden, Message: "your role (" + string(u.Role) + ") may not do this"})
	return false
}

// readDashboardBody decodes a JSON body into dst, refusing unknown fields.
func readDashboardBody(c *gin.Context, dst any) bool {
	return readStrictBody(c, dst, dashboardBodyLimit)
}

// dashboardStoreError answers a failed store call of the dashboard or of its admin routes.
func (s *Server) dashboardStoreError(c *gin.Context, err error, notFoundCode string) {
	switch {
	case errors.Is(err, store.ErrEmailTaken):
		abort(c, &Error{Code: CodeDashboardUserExists, Message: "a dashboard user already signs in with this email"})
	case errors.Is(err, store.ErrLastOwner):
		abort(c, &Error{Code: CodeLastOwner, Message: "an integrator keeps at least one owner: make another user owner first"})
	default:
		s.adminStoreError(c, err, notFoundCode)
	}
}

// signInBody is POST /dashboard/api/session's body.
type signInBody struct {
	Email    string `json:"email" required:"true"`
	Password string `json:"password" required:"true"`
}

// linkSignInBody is POST /dashboard/api/session/link's body: the token of a one-time link.
type linkSignInBody struct {
	Token string `json:"token" required:"true"`
}

// admitSignIn counts a sign-in attempt against its subjects' limits, or answers 429 with
// Retry-After (the time until the oldest attempt that counts leaves the window).
func (s *Server) admitSignIn(c *gin.Context, subjects []string, limits []int) bool {
	counts, ok, err := s.Store.AdmitSignInAttempt(c.Request.Context(), subjects, limits, signInWindow)
	if err != nil {
		s.dashboardStoreError(c, err, CodeUnauthorized)
		return false
	}
	if ok {
		return true
	}
	var wait time.Duration
	for i, n := range counts {
		if n.Count >= limits[i] {
			wait = max(wait, time.Until(n.Oldest.Add(signInWindow)))
		}
	}
	s.Logger.Warn("dashboard: sign-in attempts over their limit", "client", c.ClientIP())
	c.Header("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	abort(c, &Error{Code: CodeRateLimited, Message: "too many sign-in attempts; retry later"})
	return false
}

// errWrongCredentials answers a wrong email and a wrong password alike.
var errWrongCredentials = &Error{Code: CodeUnauthorized, Message: "wrong email or password"}

// dashboardSignIn serves POST /dashboard/api/session: email and password. An unknown email, a
// user without a password and a wrong password answer the same 401 in the same time (a dummy
// hash is checked when there is no real one).
func (s *Server) dashboardSignIn(c *gin.Context) {
	var b signInBody
	if !readDashboardBody(c, &b) {
		return
	}
	email, err := auth.NormalizeEmail(b.Email)
	if err != nil {
		email = strings.ToLower(strings.TrimSpace(b.Email)) // counted all the same, and refused below
	}
	emailSubject := "email:" + email
	if !s.admitSignIn(c, []string{emailSubject, "ip:" + ratelimit.ClientKey(c.ClientIP())}, []int{signInPerEmail, signInPerIP}) {
		return
	}
	var u *auth.DashboardUser
	var hash string
	if err == nil && len(b.Password) <= auth.MaxPasswordLen {
		if u, hash, err = s.Store.DashboardUserByEmail(c.Request.Context(), email); err != nil {
			s.dashboardStoreError(c, err, CodeUnauthorized)
			return
		}
	}
	if !auth.PasswordMatches(hash, b.Password) || u == nil {
		abort(c, errWrongCredentials)
		return
	}
	if err := s.Store.ForgetSignInAttempts(c.Request.Context(), emailSubject); err != nil {
		s.Logger.Warn("dashboard: forgetting the attempts of a sign-in", "error", err)
	}
	s.startSession(c, u, "password")
}

// dashboardLinkSignIn serves POST /dashboard/api/session/link: a one-time link's token, used
// once, before it expires. Attempts count against the client's limit.
func (s *Server) dashboardLinkSignIn(c *gin.Context) {
	var b linkSignInBody
	if !readDashboardBody(c, &b) {
		return
	}
	if !s.admitSignIn(c, []string{"ip:" + ratelimit.ClientKey(c.ClientIP())}, []int{signInPerIP}) {
		return
	}
	errLink := &Error{Code: CodeUnauthorized, Message: "the link is not valid: unknown, used or expired"}
	if !auth.WellFormedToken(b.Token) {
		abort(c, errLink)
		return
	}
	u, err := s.Store.UseDashboardLink(c.Request.Context(), auth.TokenHash(b.Token))
	if errors.Is(err, store.ErrNotFound) {
		abort(c, errLink)
		return
	}
	if err != nil {
		s.dashboardStoreError(c, err, CodeUnauthorized)
		return
	}
	s.startSession(c, u, "link")
}

// startSession makes a session for u, sets its cookie and answers 200 with what GET /me says.
func (s *Server) startSession(c *gin.Context, u *auth.DashboardUser, how string) {
	token, err := auth.NewSecretToken()
	if err != nil {
		s.dashboardStoreError(c, err, CodeUnauthorized)
		return
	}
	expires := time.Now().Add(dashboardSessionTTL)
	if err := s.Store.CreateDashboardSession(c.Request.Context(), u.ID, auth.TokenHash(token), expires, c.ClientIP()); err != nil {
		s.dashboardStoreError(c, err, CodeUnauthorized)
		return
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: DashboardCookie, Value: token, Path: dashboardCookiePath, Expires: expires,
		MaxAge: int(dashboardSessionTTL.Seconds()), HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	s.Logger.Info("dashboard sign-in", "userId", u.ID, "integratorId", u.IntegratorID, "by", how, "remote", c.ClientIP())
	s.answerMe(c, u, token)
}

// dashboardSignOut serves DELETE /dashboard/api/session: the session ends and its cookie is
// cleared.
func (s *Server) dashboardSignOut(c *gin.Context) {
	token := c.GetString(ctxDashboardToken)
	if err := s.Store.EndDashboardSession(c.Request.Context(), auth.TokenHash(token)); err != nil {
		s.dashboardStoreError(c, err, CodeUnauthorized)
		return
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: DashboardCookie, Value: "", Path: dashboardCookiePath, MaxAge: -1,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	c.Status(http.StatusNoContent)
}

// dashboardMe serves GET /dashboard/api/me.
func (s *Server) dashboardMe(c *gin.Context) {
	s.answerMe(c, dashboardUser(c), c.GetString(ctxDashboardToken))
}

func (s *Server) answerMe(c *gin.Context, u *auth.DashboardUser, token string) {
	in, err := s.Store.Integrator(c.Request.Context(), u.IntegratorID)
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	c.JSON(http.StatusOK, dashboardMeJSON{User: u.View(), Role: u.Role, Integrator: dashboardIntegratorJSON{ID: in.ID, Name: in.Name},
		CSRFToken: auth.CSRFToken(token)})
}

// passwordBody is PUT /dashboard/api/me/password's body: the current password is needed when
// the user has one.
type passwordBody struct {
	CurrentPassword string `json:"currentPassword"`
	NewPassword     string `json:"newPassword" required:"true"`
}

// dashboardSetPassword serves PUT /dashboard/api/me/password: the user's other sessions end.
func (s *Server) dashboardSetPassword(c *gin.Context) {
	var b passwordBody
	if !readDashboardBody(c, &b) {
		return
	}
	if err := auth.CheckPassword(b.NewPassword); err != nil {
		abort(c, invalidInput(err.Error()))
		return
	}
	u := dashboardUser(c)
	if u.HasPassword {
		_, hash, err := s.Store.DashboardUserByEmail(c.Request.Context(), u.Email)
		if err != nil {
			s.dashboardStoreError(c, err, CodeUnauthorized)
			return
		}
		if !auth.PasswordMatches(hash, b.CurrentPassword) {
			abort(c, &Error{Code: CodeForbidden, Message: "currentPassword is not your password"})
			return
		}
	}
	hash, err := auth.HashPassword(b.NewPassword)
	if err != nil {
		s.dashboardStoreError(c, err, CodeUnauthorized)
		return
	}
	out, err := s.Store.SetDashboardPassword(c.Request.Context(), u.IntegratorID, u.ID, hash,
		auth.TokenHash(c.GetString(ctxDashboardToken)), dashboardActor(c))
	if err != nil {
		s.dashboardStoreError(c, err, CodeDashboardUserNotFound)
		return
	}
	c.JSON(http.StatusOK, out.View())
}

// issueLink makes a one-time sign-in link for the integrator's user, stored as its hash.
func (s *Server) issueLink(c *gin.Context, integratorID, userID string, by store.Actor) (*dashboardLinkJSON, bool) {
	token, err := auth.NewSecretToken()
	if err != nil {
		s.dashboardStoreError(c, err, CodeDashboardUserNotFound)
		return nil, false
	}
	expires := time.Now().Add(dashboardLinkTTL).UTC().Truncate(time.Second)
	if err := s.Store.IssueDashboardLink(c.Request.Context(), integratorID, userID, auth.TokenHash(token), expires, by); err != nil {
		s.dashboardStoreError(c, err, CodeDashboardUserNotFound)
		return nil, false
	}
	return &dashboardLinkJSON{Token: token, Path: dashboardLinkPath + token, ExpiresAt: expires}, true
}

// The team (owners only).

func (s *Server) dashboardTeam(c *gin.Context) {
	if !requireRole(c, auth.RoleOwner) {
		return
	}
	list, err := s.Store.DashboardUsers(c.Request.Context(), dashboardUser(c).IntegratorID)
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	c.JSON(http.StatusOK, dashboardUsersJSON{Users: views(list, (*auth.DashboardUser).View)})
}

// inviteBody is POST /dashboard/api/team's body.
type inviteBody struct {
	Email string    `json:"email" required:"true"`
	Role  auth.Role `json:"role" required:"true" enum:"owner,developer,support"`
}

// dashboardInvite adds a user without a password and answers 201 with a one-time link for them
// (shown in this answer only), which the owner passes on.
func (s *Server) dashboardInvite(c *gin.Context) {
	if !requireRole(c, auth.RoleOwner) {
		return
	}
	var b inviteBody
	if !readDashboardBody(c, &b) {
		return
	}
	by, integratorID := dashboardActor(c), dashboardUser(c).IntegratorID
	u, err := s.Store.CreateDashboardUser(c.Request.Context(), integratorID, b.Email, b.Role, "", by)
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	link, ok := s.issueLink(c, integratorID, u.ID, by)
	if !ok {
		return
	}
	c.JSON(http.StatusCreated, invitedJSON{User: u.View(), Link: *link})
}

// roleBody is PATCH /dashboard/api/team/:userId's body.
type roleBody struct {
	Role auth.Role `json:"role" required:"true" enum:"owner,developer,support"`
}

func (s *Server) dashboardSetRole(c *gin.Context) {
	if !requireRole(c, auth.RoleOwner) {
		return
	}
	var b roleBody
	if !readDashboardBody(c, &b) {
		return
	}
	u, err := s.Store.SetDashboardUserRole(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("userId"), b.Role, dashboardActor(c))
	if err != nil {
		s.dashboardStoreError(c, err, CodeDashboardUserNotFound)
		return
	}
	c.JSON(http.StatusOK, u.View())
}

func (s *Server) dashboardRemoveUser(c *gin.Context) {
	if !requireRole(c, auth.RoleOwner) {
		return
	}
	if err := s.Store.RemoveDashboardUser(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("userId"), dashboardActor(c)); err != nil {
		s.dashboardStoreError(c, err, CodeDashboardUserNotFound)
		return
	}
	c.Status(http.StatusNoContent)
}

// Keys: the list for every role (support: labels only), the rest for owners and developers.

func (s *Server) dashboardKeys(c *gin.Context) {
	u := dashboardUser(c)
	keys, err := s.Store.APIKeys(c.Request.Context(), u.IntegratorID)
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	out := dashboardKeysJSON{APIKeys: make([]dashboardKeyJSON, len(keys))}
	for i, k := range keys {
		out.APIKeys[i] = dashboardKeyOf(k, u.Role.ManagesKeys())
	}
	c.JSON(http.StatusOK, out)
}

// dashboardKeyOf is a key as role sees it in the list: with details, or its label only.
func dashboardKeyOf(k *auth.Key, details bool) dashboardKeyJSON {
	if !details {
		return dashboardKeyJSON{Label: k.Label}
	}
	v := k.View()
	return dashboardKeyJSON{Label: v.Label, ID: v.ID, Prefix: v.Prefix, Environment: v.Environment, Tier: v.Tier, Limits: v.Limits,
		Unlimited: v.Unlimited, CreatedAt: &v.CreatedAt, LastUsedAt: v.LastUsedAt, RevokedAt: v.RevokedAt}
}

// keysGate lets owners and developers through to a key route: support is 403 on every one.
func keysGate(c *gin.Context) bool { return requireRole(c, auth.RoleOwner, auth.RoleDeveloper) }

// dashboardKeyBody is the body of POST and PATCH /dashboard/api/keys….
type dashboardKeyBody struct {
	Label       *string `json:"label"`
	Environment string  `json:"environment"`
}

// dashboardCreateKey answers 201 {key, apiKey}: the value in this answer only.
func (s *Server) dashboardCreateKey(c *gin.Context) {
	if !keysGate(c) {
		return
	}
	var b dashboardKeyBody
	if !readDashboardBody(c, &b) {
		return
	}
	value, k, err := s.Store.CreateAPIKey(c.Request.Context(), store.NewKey{IntegratorID: dashboardUser(c).IntegratorID,
		Label: val(b.Label), Environment: b.Environment}, dashboardActor(c))
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	c.JSON(http.StatusCreated, createdKeyJSON{Key: value, APIKey: k.View()})
}

func (s *Server) dashboardRenameKey(c *gin.Context) {
	if !keysGate(c) {
		return
	}
	var b dashboardKeyBody
	if !readDashboardBody(c, &b) {
		return
	}
	if b.Label == nil || b.Environment != "" {
		abort(c, invalidInput("give label (a key's environment is fixed at creation)"))
		return
	}
	k, err := s.Store.RenameAPIKey(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("keyId"), *b.Label, dashboardActor(c))
	if err != nil {
		s.dashboardStoreError(c, err, CodeAPIKeyNotFound)
		return
	}
	c.JSON(http.StatusOK, k.View())
}

func (s *Server) dashboardRevokeKey(c *gin.Context) {
	if !keysGate(c) {
		return
	}
	k, err := s.Store.RevokeAPIKey(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("keyId"), dashboardActor(c))
	if err != nil {
		s.dashboardStoreError(c, err, CodeAPIKeyNotFound)
		return
	}
	c.JSON(http.StatusOK, k.View())
}
