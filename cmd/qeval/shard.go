package main

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/suite"
)

// shard is one part of a sharded run: --shard I/N, I counted from 1.
type shard struct{ i, n int }

// parseShard reads --shard I/N ("" is the whole run).
func parseShard(s string) (*shard, error) {
	if s == "" {
		return nil, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "--shard " + s, Message: "not I/N with 1 ≤ I ≤ N",
			Hint: "--shard 2/4 takes the second of four parts; run 1/4 … 4/4 and combine them with qeval merge"}
	}
	return &shard{i: i, n: n}, nil
}

func (s *shard) String() string { return fmt.Sprintf("%d/%d", s.i, s.n) }

// owns says whether unit k (an item, or an interaction of a multi-turn file) is in
// the shard: round-robin by its position, so parts are even and the same for every
// run of the same file.
func (s *shard) owns(k int) bool { return k%s.n == s.i-1 }

// ownsID says whether the case with this id is in the shard: by a hash of the id, so
// a case stays in its shard when cases are added, removed or reordered.
func (s *shard) ownsID(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(s.n)) == s.i-1
}

// shardSuite keeps the cases of one shard and returns the ids of every case, in the
// suite's order, for qeval merge to put the shards' cases back in that order.
func shardSuite(st *qeval.Suite, s *shard) []string {
	ids := make([]string, len(st.Cases))
	kept := st.Cases[:0:0]
	for i, c := range st.Cases {
		ids[i] = c.ID
		if s.ownsID(c.ID) {
			kept = append(kept, c)
		}
	}
	st.Cases = kept
	return ids
}

// shardSpider keeps the items of one shard. A Spider file is one interaction, sharded
// by item; a SParC/CoSQL file is sharded by interaction, so that an interaction's
// turns stay together for joint accuracy. Items keep their global Index, and
// Interaction keeps the global interaction number.
func shardSpider(set *suite.Spider, s *shard) *suite.Spider {
	out := &suite.Spider{MultiTurn: set.MultiTurn}
	multi := set.MultiTurn
	for k, inter := range set.Interactions {
		if multi && !s.owns(k) {
			continue
		}
		var local []int
		for _, i := range inter {
			if !multi && !s.owns(i) {
				continue
			}
			local = append(local, len(out.Items))
			out.Items = append(out.Items, set.Items[i])
			out.Interaction = append(out.Interaction, set.Interaction[i])
			out.Turn = append(out.Turn, set.Turn[i])
		}
		out.Interactions = append(out.Interactions, local)
	}
	return out
}
