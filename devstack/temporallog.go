package devstack

// The embedded Temporal server logs through the engine's slog logger: its own log.Logger
// interface adapted to slog, with the server's chatter held below a minimum level.

import (
	"context"
	"log/slog"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// minLevelHandler drops records below min before they reach next.
type minLevelHandler struct {
	min  slog.Leveler
	next slog.Handler
}

func (h minLevelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min.Level() && h.next.Enabled(ctx, l)
}

func (h minLevelHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < h.min.Level() {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h minLevelHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevelHandler{min: h.min, next: h.next.WithAttrs(attrs)}
}

func (h minLevelHandler) WithGroup(name string) slog.Handler {
	return minLevelHandler{min: h.min, next: h.next.WithGroup(name)}
}

// slogTemporalLogger adapts a *slog.Logger to the server's log.Logger.
// Panic and Fatal are logged as errors rather than aborting the process.
// Tags added with With are kept unconverted until a record is actually
// emitted, because nearly all of the server's records are filtered out.
type slogTemporalLogger struct {
	log  *slog.Logger
	tags []tag.Tag
}

var (
	_ log.Logger      = slogTemporalLogger{}
	_ log.WithLogger  = slogTemporalLogger{}
	_ log.SLogWrapper = slogTemporalLogger{}
)

func (l slogTemporalLogger) Debug(msg string, tags ...tag.Tag) { l.emit(slog.LevelDebug, msg, tags) }
func (l slogTemporalLogger) Info(msg string, tags ...tag.Tag)  { l.emit(slog.LevelInfo, msg, tags) }
func (l slogTemporalLogger) Warn(msg string, tags ...tag.Tag)  { l.emit(slog.LevelWarn, msg, tags) }
func (l slogTemporalLogger) Error(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }
func (l slogTemporalLogger) DPanic(msg string, tags ...tag.Tag) {
	l.emit(slog.LevelError, msg, tags)
}
func (l slogTemporalLogger) Panic(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }
func (l slogTemporalLogger) Fatal(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }

// With returns a logger that adds tags to every record.
func (l slogTemporalLogger) With(tags ...tag.Tag) log.Logger {
	return slogTemporalLogger{log: l.log, tags: append(l.tags[:len(l.tags):len(l.tags)], tags...)}
}

// SLog exposes the (level-filtered) slog logger to server code that logs
// through slog directly.
func (l slogTemporalLogger) SLog() *slog.Logger {
	if len(l.tags) == 0 {
		return l.log
	}
	args := make([]any, 0, len(l.tags))
	for _, t := range l.tags {
		args = append(args, slog.Any(t.Key(), t.Value()))
	}
	return l.log.With(args...)
}

func (l slogTemporalLogger) emit(level slog.Level, msg string, tags []tag.Tag) {
	ctx := context.Background()
	if !l.log.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, len(l.tags)+len(tags))
	for _, t := range l.tags {
		attrs = append(attrs, slog.Any(t.Key(), t.Value()))
	}
	for _, t := range tags {
		attrs = append(attrs, slog.Any(t.Key(), t.Value()))
	}
	l.log.LogAttrs(ctx, level, msg, attrs...)
}
