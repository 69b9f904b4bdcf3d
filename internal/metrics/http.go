package metrics

import (
	"strconv"
	"time"
)

// ObserveHTTP records one answered request of service: route is the router's pattern ("" for
// no route: "unmatched"), errorCode the answer's code ("" on success).
func ObserveHTTP(service, route, method string, status int, errorCode string, took time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	HTTPRequests.WithLabelValues(service, route, method, strconv.Itoa(status), errorCode).Inc()
	HTTPDuration.WithLabelValues(service, route, method).Observe(took.Seconds())
}
