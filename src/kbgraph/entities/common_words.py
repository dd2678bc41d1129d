"""English words that are also plausible entity names ("Data", "Growth", "Will").

A name that is one of these is matched only with its exact capitalisation and
not at the start of a sentence, and a person's first name that is one of these
is not used as an alias on its own: precision before recall.
"""

COMMON_WORDS = frozenset(
    """
a about above after again against all also always an and any api app apps april are area art as ask at
august away back bad base be because been before being below best better big bill both brief build
but by call can care case cash change chase check clear close cloud code come core cost could
court craft crown dash data date dawn day deal design desk dev did do does done down draft each
early east edge end energy even ever every faith fall far fast field final find fine fire first
five flow focus for forge form four frank free from front full fund gate gene get give glen go
goal gold good grant great green grid group growth guy had has have he head heart help her here
high him his hope hot how hub i if in infra into is it its joy july june just keep key kind lake
land last late lead lean left legal less let level light like line link live long look low
made main make many march mark market may me mesh might more most much must my name near need
net new next nice night no north not note now of off office ok old on once one only open ops or
order other our out over own page park part pass path pay people per pick pilot plan platform
play point pool post power press price prime product pulse push quick rain range ray reach read
ready real red rest review right ring river road rob rock rose round rule run safe said sales
same say scale search security see send set shape she should show side sign simple site sky
small so some south spark spring square stand star start state stone store story summer sun
support sure swift take talk team tech than that the their them then there these they thing
think this those three through tide time to today too top total tower trade true trust try
turn two under up us use very view wall want was way we web well were west what when where
which while white who why will win with wood work world would year yes yet you your zero
""".split()
)
