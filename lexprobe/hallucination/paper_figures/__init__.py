"""The papers' figures of *Large Legal Fictions*, its published estimates, beside a user's profile (`hallucination
report --reference paper`): the shipped tables (`data`), the comparisons (`compare`), and their place in the HTML
report (`html`). ("reference" elsewhere in the domain is the answer key a scorer compares an answer with.)

May import: `profile`, `tasks` of this domain; `lexprobe.reporting`."""
