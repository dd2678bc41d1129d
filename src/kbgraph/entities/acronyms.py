"""Words everyone writes in capitals that are no one's initials: "API", "SRE", "OKR", "NASA".

Two to four capitals alone are read as a person's initials ("AJ" for Arjun J. Mehta), so a note
that lists `attendees: [API, SRE]` beside Ana P. Ibarra and Sara R. Evans was asked whether "API"
is Ana (the shared meeting lifted the guess into the gray zone). A word of this list is read as the
word it is: it finds an entity that is named or aliased so exactly, and nobody by its letters.
Of the two-letter words only the few a note hardly ever means as someone's initials are listed
("HR", "QA", "IT", "UI", "UX", "AI"); "ML", "DB", "PM" or "VP" are as often a person's, and stay initials.
"""

from __future__ import annotations

ACRONYMS = frozenset(
    """
    hr qa it ui ux ai
    api apis sdk cli gui llm nlp dba sql etl elt cicd vcs vpc vpn cdn dns tls ssl ssh http https html
    css json yaml xml csv pdf url uri rest grpc tcp udp cpu gpu tpu ram ssd hdd iot saas paas iaas sso
    iam rbac mfa otp jwt oidc saml ldap sre devops ops sec okr okrs kpi kpis roi sla slo sli mttr rca adr
    rfc rfp rfq poc mvp prd spec faq eta eod eow eoy fyi tbd tba asap wip todo ooo pto wfh aka rsvp dri
    raci sme nda sow msa gtm arr mrr nps cac ltv seo sem crm erp cms lms ceo cto cfo coo cio ciso cpo cmo
    svp evp nasa esa fbi cia nsa irs who nato usa uae emea apac amer latam nyc gdpr hipaa pci soc iso ietf
    ieee ansi nist owasp cve aws gcp ibm sap amd gnu bbc cnn llc inc ltd plc gmbh
    """.split()
)
