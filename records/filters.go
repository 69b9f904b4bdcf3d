package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Limits of the `filters` language, so one parameter cannot make an unbounded query.
const (
	maxFilterBytes  = 8 << 10
	maxFilterGroups = 20
	maxGroupKeys    = 20
	maxKeyValues    = 50
)

// ParseFilters reads the `filters` parameter: a JSON array of groups (or one group object), each
// an object of keys to a value, an array of values (OR within the key) or null (a null check);
// a `not:` prefix on a key negates it. Keys in a group are ANDed, groups are ORed. An unknown
// key, a key outside FilterKeys, an empty array, null mixed with values or a malformed value is an
// error naming it.
func ParseFilters(raw string) ([]Group, error) {
	if len(raw) > maxFilterBytes {
		return nil, fmt.Errorf("filters is longer than %d bytes", maxFilterBytes)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("filters is empty")
	}
	var groups []map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(raw))
	if strings.HasPrefix(raw, "{") {
		var one map[string]json.RawMessage
		if err := dec.Decode(&one); err != nil {
			return nil, errors.New("filters must be a JSON array of objects")
		}
		groups = []map[string]json.RawMessage{one}
	} else if err := dec.Decode(&groups); err != nil {
		return nil, errors.New("filters must be a JSON array of objects")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("filters must be one JSON array")
	}
	if len(groups) == 0 {
		return nil, errors.New("filters has no group")
	}
	if len(groups) > maxFilterGroups {
		return nil, fmt.Errorf("filters has more than %d groups", maxFilterGroups)
	}
	out := make([]Group, 0, len(groups))
	for i, g := range groups {
		if len(g) == 0 {
			return nil, fmt.Errorf("filters group %d is empty", i+1)
		}
		if len(g) > maxGroupKeys {
			return nil, fmt.Errorf("filters group %d has more than %d keys", i+1, maxGroupKeys)
		}
		group := make(Group, 0, len(g))
		for name, val := range g {
			c, err := parseCond(name, val)
			if err != nil {
				return nil, err
			}
			group = append(group, c)
		}
		sortConds(group)
		out = append(out, group)
	}
	return out, nil
}

// parseCond reads one key of a group.
func parseCond(name string, val json.RawMessage) (Cond, error) {
	c := Cond{}
	key := name
	if rest, ok := strings.CutPrefix(name, "not:"); ok {
		c.Not, key = true, rest
	}
	c.Key = Key(key)
	if _, known := keyKinds[c.Key]; !known || !isFilterKey(c.Key) {
		return c, fmt.Errorf("filters: unknown key %q", name)
	}
	val = bytes.TrimSpace(val)
	if string(val) == "null" {
		c.Null = true
		return c, nil
	}
	var values []json.RawMessage
	if len(val) > 0 && val[0] == '[' {
		if err := json.Unmarshal(val, &values); err != nil {
			return c, fmt.Errorf("filters: %s must be a value, an array of values or null", name)
		}
		if len(values) == 0 {
			return c, fmt.Errorf("filters: %s has an empty array", name)
		}
		if len(values) > maxKeyValues {
			return c, fmt.Errorf("filters: %s has more than %d values", name, maxKeyValues)
		}
	} else {
		values = []json.RawMessage{val}
	}
	for _, v := range values {
		v = bytes.TrimSpace(v)
		if string(v) == "null" {
			return c, fmt.Errorf("filters: %s mixes null with values", name)
		}
		s, err := scalar(v)
		if err != nil {
			return c, fmt.Errorf("filters: %s: %v", name, err)
		}
		norm, err := NormalizeValue(c.Key, s)
		if err != nil {
			return c, fmt.Errorf("filters: %v", err)
		}
		c.Values = appendUnique(c.Values, norm)
	}
	return c, nil
}

// scalar is a JSON string or number as text.
func scalar(v json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err == nil {
		return n.String(), nil
	}
	return "", errors.New("values must be strings or numbers")
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// sortConds orders a group's conditions by key, so that one filter always compiles to the same
// SQL text (and the same cached statement), whatever order its JSON object had.
func sortConds(g Group) {
	for i := 1; i < len(g); i++ {
		for j := i; j > 0 && (g[j].Key < g[j-1].Key || (g[j].Key == g[j-1].Key && !g[j].Not && g[j-1].Not)); j-- {
			g[j], g[j-1] = g[j-1], g[j]
		}
	}
}
