"""The notebook view: the tool's self-contained HTML report (`analyze -o report.html`, docs/reports.md)
shown inline, whole or one section of it.

A page is shown in an <iframe srcdoc>, so its styles, element ids and scripts (Chart.js, the
timeline) stay out of the notebook's own page; `sandbox="allow-scripts"` lets the charts draw and
nothing else (the page's Content-Security-Policy already forbids every network request).

A section view is the same page with the other sections hidden by a style added to its <head>:
the report's sections are `<main> > <section id=NAME>` (summary, timeline, steps, dispatch,
operators, modules, findings, checks, run; docs/reports.md). The roofline view is the section with
id="roofline": the hook by which a report that has a roofline chart shows it here. A report without
such a section gives a view that says so (`available` False) instead of an empty frame.
"""
import html

_HIDE_OTHERS = ('<style id="npu-advisor-section-view">body > header, body > nav, body > footer, '
                'main > section:not(#{id}) {{ display: none !important; }} '
                'main > section#{id} {{ margin-top: 0; }}</style>')
# The timeline draws its first step on load (reports/templates/timeline.js); this picks another
# one as its step selector would.
_PICK_STEP = ('<script id="npu-advisor-step-view">(function () {{ var s = document.querySelector('
              '"#timeline select.tl-step"); if (s && s.value !== "{index}") {{ s.value = "{index}"; '
              's.dispatchEvent(new Event("change")); }} }})();</script>')


def iframe(page, height):
    return ('<iframe class="npu-advisor-report" sandbox="allow-scripts" style="width:100%;height:{}px;'
            'border:1px solid #ddd" srcdoc="{}"></iframe>').format(int(height), html.escape(page, quote=True))


def has_section(page, section_id):
    return '<section id="{}"'.format(section_id) in page


def section_page(page, section_id, script=""):
    """The report page showing only the section `section_id` (and running `script` at its end)."""
    head = page.find("</head>")
    body = page.rfind("</body>")
    if head < 0 or body < 0:
        raise ValueError("not an npu-advisor HTML report (no </head> or </body>)")
    style = _HIDE_OTHERS.format(id=section_id)
    return page[:head] + style + page[head:body] + script + page[body:]


def pick_step_script(index):
    return _PICK_STEP.format(index=int(index))


class HtmlView:
    """One view of a report for a notebook: `_repr_html_` shows it inline; `html` is the page it
    shows (a whole HTML document) and `save(path)` writes it. `available` is False when the report
    has nothing to show here; `note` then says why."""

    def __init__(self, page, title, height=700, note=None):
        self.page = page
        self.title = title
        self.height = height
        self.available = page is not None
        self.note = note

    @property
    def html(self):
        return self.page

    def save(self, path):
        if self.page is None:
            raise LookupError(self.note)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.page)
        return path

    def _repr_html_(self):
        if self.page is None:
            return '<p class="npu-advisor-note"><b>{}</b>: {}</p>'.format(
                html.escape(self.title), html.escape(self.note))
        return iframe(self.page, self.height)

    def __repr__(self):
        if self.page is None:
            return "<{}: {}>".format(self.title, self.note)
        return "<{}: an HTML view of {} bytes; display it in a notebook, or .save(path)>".format(
            self.title, len(self.page))

