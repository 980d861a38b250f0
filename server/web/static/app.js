// the page's client: see the full version
