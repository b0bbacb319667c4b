package content

import (
	"math/rand/v2"
	"strings"
	"testing"

	gansi "charm.land/glamour/v2/ansi"
	"golang.org/x/net/html"
)

// tokenizerText is HTML's text as golang.org/x/net/html's tokenizer splits it,
// dropping the content of the elements bluemonday's StrictPolicy drops: what
// glamour's copy kept of HTML before it stopped linking x/net/html (whose
// entity table is built at program start). The copy's own scanner must agree.
func tokenizerText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0
	dropped := func(name []byte) bool {
		switch string(name) {
		case "frame", "frameset", "iframe", "noembed", "noframes", "noscript", "object", "script", "style", "title", "nostyle":
			return true
		}
		return false
	}
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken:
			if name, _ := z.TagName(); dropped(name) {
				skip++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); dropped(name) && skip > 0 {
				skip--
			}
		}
	}
}

func TestHTMLTextAgreesWithTokenizer(t *testing.T) {
	ctx := gansi.NewRenderContext(gansi.Options{})
	check := func(in string) {
		t.Helper()
		if got, want := ctx.SanitizeHTML(in, false), tokenizerText(in); got != want {
			t.Errorf("SanitizeHTML(%q)\n got %q\nwant %q", in, got, want)
		}
	}
	for _, in := range []string{
		"", "plain & simple", "a &lt;b&gt; &amp; &copy; &#65;&#x42; &notanentity; &amp",
		"<p>Burst &lt;b&gt; is 10 &amp; more</p>",
		"<div class=\"note\">x</div>", "<a href='x>y'>link</a> after", `<a title="a>b" href=x>t</a>`,
		"<!-- hidden -->shown", "<!-->shown", "<!--->shown", "<!-- a -- b --!>shown", "<!-- unclosed",
		"<!DOCTYPE html>text", "<?xml version=\"1.0\"?>text", "</>text", "</ 3>text", "<3 is less", "a < b > c",
		"<script>alert('<b>x</b>')</script>after", "<SCRIPT>x</script >after", "<script>x</scripty>y</script>z",
		"<style>p{color:red}</style>kept", "<title>t &amp; t</title>body", "<textarea>a &amp; <b>b</b></textarea>c",
		"<xmp>&amp; <b></xmp>c", "<plaintext>a <b> &amp;", "<noscript>ns</noscript>y", "<iframe>f</iframe>g",
		"<object>o<param>p</object>q", "<frameset><frame>f</frameset>x", "<nostyle>n</nostyle>m",
		"<br>line<br/>line<br />", "<img src=x onerror=alert(1)>img", "<span style=\"x\">spanned</span>",
		"<p\nclass=a>multi\r\nline\rtext</p>", "<unclosed attr=\"never", "<b>bold", "text</b>",
		"<a b='c\"d'>e</a>", "<a b=\"c'd\">e</a>", "<a b = 'x>y' >z</a>", "<a 'q>r'>s", "<a b=>c",
		"\x00nul<b>\x00</b>", "emoji 😀 &#x1F600;", "<SPAN>upper</SPAN>", "<script>never closed",
	} {
		check(in)
	}
	// Random mixtures of the pieces HTML is made of.
	pieces := []string{"<", ">", "</", "/>", "<!--", "-->", "<!", "<?", "=", "\"", "'", " ", "\n", "\r", "&amp;", "&lt", "&#60;",
		"-", "!", "/", "--!>", "<script", "</script", "SCRIPT", "ſcript", "\x00", "&#0;", "&#13;",
		"a", "b", "p", "div", "script", "style", "title", "textarea", "xmp", "object", "frame", "br", "href", "x>y", "text"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(14) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		check(b.String())
	}
}
