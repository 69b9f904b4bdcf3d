package migrations

import (
	"context"
	"io/fs"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Files are the embedded migrations.
var Files fs.FS = files

// ApplyTo applies the migrations of fsys up to version upTo, as Apply does all of the embedded ones.
func ApplyTo(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS, upTo int64) ([]string, error) {
	return apply(ctx, pool, fsys, upTo)
}
