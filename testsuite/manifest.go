package testsuite

// Manifest describes a built suite; Build writes it as OUT/manifest.json.
type Manifest struct {
	Seed       uint64      `json:"seed"`
	Version    string      `json:"qeval_version"`
	Mode       string      `json:"mode"`
	PerSchema  int         `json:"dbs_per_schema"`
	Candidates int         `json:"candidates_per_schema"`
	Databases  []*Database `json:"databases"`
	// Neighbours over every database: made, equivalent to the gold under the mode
	// (the same text after the mode's rewrite), failing on the original database,
	// told apart from the gold by the original or any generated candidate (killable),
	// and by the suite (killed).
	Neighbours int   `json:"neighbours"`
	Equivalent int   `json:"equivalent"`
	Broken     int   `json:"broken"`
	Killable   int   `json:"killable"`
	Killed     int   `json:"killed"`
	BuildMS    int64 `json:"build_ms"`
}

// Database is the part of the manifest for one db_id.
type Database struct {
	DBID string `json:"db_id"`
	// Error is set when the database could not be built; the suite folder then holds
	// the original alone (when it could be copied).
	Error string   `json:"error,omitempty"`
	Notes []string `json:"notes,omitempty"`
	Files []File   `json:"files"`
	// Rejected counts generated candidates not used, by reason.
	Rejected   map[string]int `json:"rejected,omitempty"`
	Golds      []*GoldReport  `json:"golds"`
	Neighbours int            `json:"neighbours"`
	Equivalent int            `json:"equivalent"`
	Broken     int            `json:"broken"`
	Killable   int            `json:"killable"`
	Killed     int            `json:"killed"`
}

// File is one database file of the suite.
type File struct {
	Name      string         `json:"file"`
	Generated bool           `json:"generated"`
	Rows      map[string]int `json:"rows"`
	// Kills is the number of neighbours this file kills that the files listed before
	// it did not.
	Kills int `json:"kills"`
}

// GoldReport is how the suite does on one gold query.
type GoldReport struct {
	Ref        string      `json:"ref"`
	Error      string      `json:"error,omitempty"`
	Neighbours int         `json:"neighbours"`
	Equivalent int         `json:"equivalent"`
	Broken     int         `json:"broken"`
	Killed     int         `json:"killed"`
	Survivors  []Neighbour `json:"survivors,omitempty"`
}
