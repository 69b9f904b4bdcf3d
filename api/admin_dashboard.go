package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/auth"
)

// The admin API's part of the dashboard (docs/dashboard.md, "Accounts"): an operator creates an
// integrator's first dashboard users and issues one-time sign-in links, audited like every admin
// change. A new user has no password: they sign in by a link and may set one.

// dashboardUserBody is POST /admin/integrators/:integratorId/dashboard-users's body.
type dashboardUserBody struct {
	adminChange
	Email string    `json:"email" required:"true"`
	Role  auth.Role `json:"role" required:"true" enum:"owner,developer,support"`
}

func (s *Server) adminCreateDashboardUser(c *gin.Context) {
	var b dashboardUserBody
	if !readAdminBody(c, &b, &b.adminChange) {
		return
	}
	by := b.actor(c)
	u, err := s.Store.CreateDashboardUser(c.Request.Context(), c.Param("integratorId"), b.Email, b.Role, "", by)
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	s.Logger.Info("admin change", "action", "dashboard_user.create", "operator", by.Name, "remote", by.Remote,
		"integratorId", u.IntegratorID, "userId", u.ID)
	c.JSON(http.StatusCreated, u.View())
}

func (s *Server) adminListDashboardUsers(c *gin.Context) {
	if _, err := s.Store.Integrator(c.Request.Context(), c.Param("integratorId")); err != nil {
		s.adminStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	list, err := s.Store.DashboardUsers(c.Request.Context(), c.Param("integratorId"))
	s.adminAnswer(c, err, CodeIntegratorNotFound, func() any { return dashboardUsersJSON{Users: views(list, (*auth.DashboardUser).View)} })
}

// adminDashboardLink answers 201 with a one-time sign-in link for the user: its token in this
// answer only.
func (s *Server) adminDashboardLink(c *gin.Context) {
	var b adminChange
	if !readAdminBody(c, &b, &b) {
		return
	}
	by := b.actor(c)
	link, ok := s.issueLink(c, c.Param("integratorId"), c.Param("userId"), by)
	if !ok {
		return
	}
	s.Logger.Info("admin change", "action", "dashboard_user.link", "operator", by.Name, "remote", by.Remote,
		"integratorId", c.Param("integratorId"), "userId", c.Param("userId"))
	c.JSON(http.StatusCreated, link)
}

// dashboardOperatorBody is PATCH /admin/integrators/:integratorId/dashboard-users/:userId's
// body. isOperator is the user's flag; operator, as in every admin body, names who makes the
// change.
type dashboardOperatorBody struct {
	adminChange
	IsOperator *bool `json:"isOperator" required:"true"`
}

// adminSetDashboardOperator marks a dashboard user as one of the engine's operators (the
// request page then links them to the request's workflow in the Temporal Web UI) or not.
func (s *Server) adminSetDashboardOperator(c *gin.Context) {
	var b dashboardOperatorBody
	if !readAdminBody(c, &b, &b.adminChange) {
		return
	}
	if b.IsOperator == nil {
		abort(c, invalidInput("give isOperator (true or false)"))
		return
	}
	by := b.actor(c)
	u, err := s.Store.SetDashboardOperator(c.Request.Context(), c.Param("integratorId"), c.Param("userId"), *b.IsOperator, by)
	if err != nil {
		s.dashboardStoreError(c, err, CodeDashboardUserNotFound)
		return
	}
	s.Logger.Info("admin change", "action", "dashboard_user.operator", "operator", by.Name, "remote", by.Remote,
		"integratorId", u.IntegratorID, "userId", u.ID, "isOperator", u.Operator)
	c.JSON(http.StatusOK, u.View())
}
