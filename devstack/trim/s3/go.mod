// The development Temporal server's stand-in for github.com/aws/aws-sdk-go-v2/service/s3: the
// types its S3 archiver names, with every operation refused, so the dev server does not compile
// the S3 client for an archiver it never enables. See devstack/trim/README.md.
module github.com/aws/aws-sdk-go-v2/service/s3

go 1.26.4

require github.com/aws/aws-sdk-go-v2 v1.43.4
