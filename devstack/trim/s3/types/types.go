// Package types has the S3 listing and error types the Temporal server's archiver names.
package types

// Object is a listed object.
type Object struct{ Key *string }

// CommonPrefix is a listed key prefix.
type CommonPrefix struct{ Prefix *string }

// NoSuchBucket is the error of a bucket that does not exist.
type NoSuchBucket struct{ Message *string }

func (e *NoSuchBucket) Error() string { return "NoSuchBucket" }

// NoSuchKey is the error of an object that does not exist.
type NoSuchKey struct{ Message *string }

func (e *NoSuchKey) Error() string { return "NoSuchKey" }
