package ui

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"github.com/firewatch/firewatch/theme"
	artcontent "github.com/firewatch/firewatch/ui/content"
	"github.com/firewatch/firewatch/ui/diff"
	"github.com/firewatch/firewatch/ui/jsonview"
	"github.com/firewatch/firewatch/ui/waterfall"
)

// componentStyles are the looks of the detail components (jsonview,
// content, diff, waterfall), all mapped from the theme's semantic palette
// here and nowhere else. With no colour they are the components' own
// attribute-only styles.
type componentStyles struct {
	json      jsonview.Styles
	content   artcontent.Styles
	diff      diff.Styles
	waterfall waterfall.Styles
	glamour   artcontent.GlamourStyle
}

// fgStyle is a style with foreground c (the terminal's default when nil).
func fgStyle(c color.Color) lipgloss.Style {
	s := lipgloss.NewStyle()
	if c != nil {
		s = s.Foreground(c)
	}
	return s
}

func newComponentStyles(p theme.Palette, noColor, ascii bool) componentStyles {
	glam := artcontent.GlamourDark
	if p.Name == theme.Light().Name {
		glam = artcontent.GlamourLight
	}
	if ascii {
		glam = artcontent.GlamourASCII
	}
	if noColor {
		cs := componentStyles{
			json:      jsonview.PlainStyles(),
			content:   artcontent.PlainStyles(),
			diff:      diff.PlainStyles(),
			waterfall: waterfall.PlainStyles(),
			glamour:   artcontent.GlamourNoTTY,
		}
		if ascii {
			cs.glamour = artcontent.GlamourASCII
		}
		return cs
	}
	selected := lipgloss.NewStyle().Reverse(true)
	if p.Selection != nil {
		selected = lipgloss.NewStyle().Background(p.Selection)
	}
	note := fgStyle(p.Warn).Italic(true)
	js := jsonview.Styles{
		Key:    fgStyle(p.Accent),
		String: fgStyle(p.Good),
		Number: fgStyle(p.Running),
		Bool:   fgStyle(p.Warn),
		Null:   fgStyle(p.Muted).Italic(true),
		Punct:  fgStyle(p.Muted),
		Fold:   fgStyle(p.Muted).Italic(true),
		Cursor: selected,
		Note:   note,
	}
	return componentStyles{
		json: js,
		content: artcontent.Styles{
			JSON: js,
			Text: fgStyle(p.Fg),
			Tag:  fgStyle(p.Muted),
			Ref:  fgStyle(p.Running).Underline(true),
			Note: note,
		},
		diff: diff.Styles{
			Insert:  fgStyle(p.Good),
			Delete:  fgStyle(p.Bad),
			Equal:   fgStyle(p.Fg),
			Gap:     fgStyle(p.Muted).Italic(true),
			Summary: fgStyle(p.Fg).Bold(true),
			Note:    note,
		},
		waterfall: waterfall.Styles{
			Running:    fgStyle(p.Running),
			Finished:   fgStyle(p.Good),
			Failed:     fgStyle(p.Bad),
			Unfinished: fgStyle(p.Muted),
			Agent:      fgStyle(p.Fg).Bold(true),
			Tool:       fgStyle(p.Fg),
			Session:    fgStyle(p.Running),
			Duration:   fgStyle(p.Muted),
			Ruler:      fgStyle(p.Muted),
			Selected:   selected,
			Note:       fgStyle(p.Muted).Italic(true),
		},
		glamour: glam,
	}
}
