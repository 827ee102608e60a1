package clickhouse

// CheckStatement is checkStatement, for the tests of the statement check.
var CheckStatement = checkStatement

// ExcessGrants is excessGrants, for its table test.
var ExcessGrants = excessGrants
