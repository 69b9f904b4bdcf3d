// Package iterator has the end-of-iteration sentinel of Google's client libraries.
package iterator

import "errors"

// Done is returned by an iterator's Next when there are no more items.
var Done = errors.New("no more items in iterator")
