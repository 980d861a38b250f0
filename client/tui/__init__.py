"""``jackal play``'s terminal client: what the player sees (:mod:`.layout`), what they are
doing (:mod:`.state`), their keys (:mod:`.keys`) and the application that runs them
(:mod:`.app`)."""
