package sim

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
)

// Screenshot snapshots reference a PNG under <URL>/files/<jobId>/..., served
// without the key like the signed URLs of a storage bucket; live view URLs
// of browser sessions point at <URL>/live/<sessionId>, a placeholder page.

func (s *Server) serveFile(w *respWriter, req *http.Request) {
	job, name, _ := strings.Cut(req.PathValue("file"), "/")
	if s.lookup(job) == nil && !s.scrapeKnown(job) || !strings.HasSuffix(name, ".png") || !strings.HasPrefix(name, "screenshots/") {
		writeJSON(w, http.StatusNotFound, errBody("File not found"))
		return
	}
	s.pngOnce.Do(func() { s.pngBytes = screenshotPNG() })
	writeRaw(w, http.StatusOK, "image/png", s.pngBytes)
}

func (s *Server) serveLive(w *respWriter, req *http.Request) {
	id := req.PathValue("id")
	if !validUUID(id) {
		writeJSON(w, http.StatusNotFound, errBody("Session not found"))
		return
	}
	page := "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Live view</title></head>" +
		"<body style=\"font-family:sans-serif;background:#111;color:#eee\"><h1>Live view</h1>" +
		"<p>Browser session <code>" + id + "</code> of a simulated Firecrawl agent run.</p>" +
		"<p>The real service streams the agent's browser here; firewatch's simulator has no browser.</p></body></html>\n"
	writeRaw(w, http.StatusOK, "text/html; charset=utf-8", []byte(page))
}

// screenshotPNG draws a small picture of a pricing page: a header bar and
// three plan cards.
func screenshotPNG() []byte {
	const wd, ht = 320, 200
	img := image.NewRGBA(image.Rect(0, 0, wd, ht))
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	fill(0, 0, wd, ht, color.RGBA{246, 247, 249, 255})
	fill(0, 0, wd, 24, color.RGBA{32, 36, 48, 255})
	for i, c := range []color.RGBA{{255, 255, 255, 255}, {255, 240, 230, 255}, {255, 255, 255, 255}} {
		x0 := 16 + i*101
		fill(x0, 44, x0+90, 184, color.RGBA{214, 218, 226, 255})
		fill(x0+1, 45, x0+89, 183, c)
		fill(x0+10, 56, x0+60, 64, color.RGBA{60, 64, 80, 255})
		fill(x0+10, 76, x0+44, 92, color.RGBA{255, 107, 43, 255})
		for l := range 4 {
			fill(x0+10, 108+l*14, x0+78, 112+l*14, color.RGBA{180, 186, 198, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
