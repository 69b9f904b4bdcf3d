// Package storage names the Cloud Storage client types the Temporal server's archiver uses.
// Archival to Cloud Storage is not available in the development server: NewClient fails, so no
// other method is ever reached; each refuses too.
package storage

import (
	"context"
	"errors"
	"time"

	"google.golang.org/api/option"
)

// ScopeFullControl is the OAuth scope of full access to Cloud Storage.
const ScopeFullControl = "https://www.googleapis.com/auth/devstorage.full_control"

var errUnavailable = errors.New("archival to Google Cloud Storage is not available in the development server")

// Client is a Cloud Storage client.
type Client struct{}

// NewClient fails: Cloud Storage is not built into the development server.
func NewClient(context.Context, ...option.ClientOption) (*Client, error) { return nil, errUnavailable }

// Bucket returns a handle on a bucket.
func (*Client) Bucket(string) *BucketHandle { return &BucketHandle{} }

// BucketHandle is a bucket.
type BucketHandle struct{}

// Object returns a handle on an object of the bucket.
func (*BucketHandle) Object(string) *ObjectHandle { return &ObjectHandle{} }

// Objects lists the bucket's objects matching q.
func (*BucketHandle) Objects(context.Context, *Query) *ObjectIterator { return &ObjectIterator{} }

// Attrs reads the bucket's metadata.
func (*BucketHandle) Attrs(context.Context) (*BucketAttrs, error) { return nil, errUnavailable }

// BucketAttrs is a bucket's metadata.
type BucketAttrs struct{ Name string }

// ObjectHandle is an object.
type ObjectHandle struct{}

// NewWriter writes the object.
func (*ObjectHandle) NewWriter(context.Context) *Writer { return &Writer{} }

// NewReader reads the object.
func (*ObjectHandle) NewReader(context.Context) (*Reader, error) { return nil, errUnavailable }

// Attrs reads the object's metadata.
func (*ObjectHandle) Attrs(context.Context) (*ObjectAttrs, error) { return nil, errUnavailable }

// ObjectAttrs is an object's metadata.
type ObjectAttrs struct {
	Name    string
	Updated time.Time
}

// Query selects objects by name prefix.
type Query struct{ Prefix string }

// ObjectIterator walks a listing.
type ObjectIterator struct{}

// Next fails: there is no listing.
func (*ObjectIterator) Next() (*ObjectAttrs, error) { return nil, errUnavailable }

// Writer writes an object.
type Writer struct{}

func (*Writer) Write([]byte) (int, error) { return 0, errUnavailable }

// Close fails: nothing was written.
func (*Writer) Close() error { return errUnavailable }

// CloseWithError aborts the write.
func (*Writer) CloseWithError(error) error { return nil }

// Reader reads an object.
type Reader struct{}

func (*Reader) Read([]byte) (int, error) { return 0, errUnavailable }

// Close releases the reader.
func (*Reader) Close() error { return nil }
