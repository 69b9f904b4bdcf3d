package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/auth"
)

// Actor is who makes an admin change, as the audit trail (admin_audit) records it.
type Actor struct {
	Name   string // who, as they named themselves (the CLI's --operator, the admin API's X-Operator)
	Via    string // ViaCLI, ViaHTTP or ViaDev
	Remote string // the HTTP caller's address; "" otherwise
	Reason string // why, when given (required for a sponsorship adjustment)
}

// Where admin changes come from.
const (
	ViaCLI  = "cli"
	ViaHTTP = "http"
	ViaDev  = "dev"
)

// ErrNoActor refuses an admin change nobody is named for: the audit trail must say who.
var ErrNoActor = errors.New("store: an admin change needs an actor (who makes it)")

// audit writes one admin_audit row in tx, the change's own transaction, so a change is never
// without its record. before and after are views (auth.KeyView, auth.IntegratorView), never a
// key or its hash; nil is SQL NULL (nothing before a creation).
func audit(ctx context.Context, tx pgx.Tx, by Actor, action, targetType, targetID string, before, after any) error {
	if strings.TrimSpace(by.Name) == "" || by.Via == "" {
		return ErrNoActor
	}
	_, err := tx.Exec(ctx, `INSERT INTO admin_audit (actor, via, remote, action, target_type, target_id, reason, before, after)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, by.Name, by.Via, by.Remote, action, targetType, targetID, by.Reason,
		before, after)
	if err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	return nil
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// isUUID reports whether s is a UUID; an id that is not one names nothing (ErrNotFound) rather
// than an error the database would answer.
func isUUID(s string) bool { return uuidRE.MatchString(s) }

// inTx runs fn in one transaction. fn's own answers (ErrNotFound, ErrBalanceTooLow, ErrNoActor, ErrEmailTaken, ErrLastOwner,
// auth.ErrInvalid) pass as they are; any other failure the server did not answer is
// intent.ErrUnavailable, so the admin API answers 503 and the caller retries.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, s.pool, fn)
	for _, own := range []error{ErrNotFound, ErrBalanceTooLow, ErrNoActor, auth.ErrInvalid, ErrEmailTaken, ErrLastOwner} {
		if errors.Is(err, own) {
			return err
		}
	}
	return unavailable(err)
}

// readErr classifies a read's failure: no row is ErrNotFound, a database that could not be
// reached is intent.ErrUnavailable.
func readErr(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return unavailable(err)
}
