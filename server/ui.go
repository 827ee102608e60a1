package server

import (
	"embed"
	"io/fs"
	"net/http"
)

// ui is the page: index.html and the small script and style files it loads. It
// needs no build step and loads nothing from elsewhere.
//
//go:embed ui/index.html ui/app.js ui/style.css
var ui embed.FS

func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	b, err := ui.ReadFile("ui/index.html")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(b)
}

// uiFiles serves /ui/app.js and /ui/style.css.
func uiFiles() http.Handler {
	sub, _ := fs.Sub(ui, "ui")
	files := http.StripPrefix("/ui/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
