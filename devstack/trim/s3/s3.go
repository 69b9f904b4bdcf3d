// Package s3 names the S3 client types the Temporal server's archiver uses. Archival to S3 is
// not available in the development server: every operation fails.
package s3

import (
	"context"
	"errors"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

var errUnavailable = errors.New("archival to S3 is not available in the development server")

// Options configure a Client.
type Options struct {
	BaseEndpoint *string
	UsePathStyle bool
}

// Client is an S3 client.
type Client struct{}

// NewFromConfig returns a client on which every operation fails.
func NewFromConfig(aws.Config, ...func(*Options)) *Client { return &Client{} }

// HeadBucketInput names a bucket.
type HeadBucketInput struct{ Bucket *string }

// HeadBucketOutput is a bucket's head.
type HeadBucketOutput struct{}

// HeadBucket fails.
func (*Client) HeadBucket(context.Context, *HeadBucketInput, ...func(*Options)) (*HeadBucketOutput, error) {
	return nil, errUnavailable
}

// HeadObjectInput names an object.
type HeadObjectInput struct{ Bucket, Key *string }

// HeadObjectOutput is an object's head.
type HeadObjectOutput struct{}

// HeadObject fails.
func (*Client) HeadObject(context.Context, *HeadObjectInput, ...func(*Options)) (*HeadObjectOutput, error) {
	return nil, errUnavailable
}

// PutObjectInput is an object to write.
type PutObjectInput struct {
	Bucket, Key *string
	Body        io.Reader
}

// PutObjectOutput is a written object.
type PutObjectOutput struct{}

// PutObject fails.
func (*Client) PutObject(context.Context, *PutObjectInput, ...func(*Options)) (*PutObjectOutput, error) {
	return nil, errUnavailable
}

// GetObjectInput names an object to read.
type GetObjectInput struct{ Bucket, Key *string }

// GetObjectOutput is a read object.
type GetObjectOutput struct{ Body io.ReadCloser }

// GetObject fails.
func (*Client) GetObject(context.Context, *GetObjectInput, ...func(*Options)) (*GetObjectOutput, error) {
	return nil, errUnavailable
}

// ListObjectsV2Input selects objects to list.
type ListObjectsV2Input struct {
	Bucket, Prefix, Delimiter, ContinuationToken *string
	MaxKeys                                      *int32
}

// ListObjectsV2Output is a listing page.
type ListObjectsV2Output struct {
	Contents              []types.Object
	CommonPrefixes        []types.CommonPrefix
	IsTruncated           *bool
	NextContinuationToken *string
}

// ListObjectsV2 fails.
func (*Client) ListObjectsV2(context.Context, *ListObjectsV2Input, ...func(*Options)) (*ListObjectsV2Output, error) {
	return nil, errUnavailable
}
