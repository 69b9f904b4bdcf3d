package devstack

// The helpers of the package's own tests, for its external tests (package devstack_test, which
// may import testkit/testenv: that package imports devstack).
var (
	TestFreePort  = testFreePort
	DialTest      = dialTest
	GreetWorkflow = greetWorkflow
)
