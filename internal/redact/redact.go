// Package redact keeps what a URL carries out of logs and answers: a chain provider's key sits
// in its RPC URL's path or query (https://eth-mainnet.example/v2/<KEY>, …?apikey=<KEY>), a
// password in its userinfo. Go's HTTP client quotes the whole URL in every *url.Error ("Post
// \"https://…/v2/<KEY>\": dial tcp …: connection refused"), and go-ethereum passes those errors
// on as they are; whatever logs such an error, or answers with its text, must redact it first.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Hidden stands for what was removed from a URL.
const Hidden = "***"

// urlPattern finds URLs in text: a scheme, "://", then anything up to a space or a quote (a
// *url.Error quotes its URL).
var urlPattern = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>` + "`" + `]+`)

// URL is u with only its scheme and host (and port) left: a userinfo, path, query or fragment
// is replaced by Hidden ("https://eth.example/v2/KEY" → "https://eth.example/***"). Text that is
// not a URL with a host is hidden whole.
func URL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" || p.Host == "" {
		return Hidden
	}
	out := p.Scheme + "://"
	if p.User != nil {
		out += Hidden + "@"
	}
	out += p.Host
	if rest := strings.TrimPrefix(p.RawPath+p.Path, "/"); rest != "" || p.RawQuery != "" || p.Fragment != "" || p.Opaque != "" {
		out += "/" + Hidden
	}
	return out
}

// Text is s with every URL in it redacted (URL).
func Text(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlPattern.ReplaceAllStringFunc(s, URL)
}

// Error is err with the URLs of its message redacted (Text); errors.Is and errors.As still see
// err and what it wraps. nil stays nil, and an error whose message holds no URL is returned as
// it is.
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := Text(msg)
	if red == msg {
		return err
	}
	return &redacted{msg: red, err: err}
}

// redacted is an error whose message had URLs in it.
type redacted struct {
	msg string
	err error
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }
