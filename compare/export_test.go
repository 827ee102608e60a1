package compare

// Exported for the external tests: facts about Python that spider-ts depends on, and
// the official quick rejection on its own.
var (
	PyFloatRepr = pyFloatRepr
	PySortKey   = pySortKey
	QuickReject = quickReject
)
