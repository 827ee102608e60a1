// Package judgeeval measures an LLM judge against labels: a set of pairs (question,
// expected and generated query) each labelled correct, partially_correct or
// incorrect, optionally with the main error class of an incorrect one. The judge is
// asked as a run asks it (query correctness, through its cache), and its answers give
// accuracy, Cohen's κ, precision and recall of "incorrect", the confusion matrix and
// its recall per error class: which kinds of mistakes it misses. The judge's failures
// are counted apart, never as disagreements.
//
// Labels are read from JSON lines or CSV (labels.go), or made from a run's cases whose
// verdict execution settled (fromrun.go), so a team measures its judge on its own data
// without labelling by hand.
package judgeeval
