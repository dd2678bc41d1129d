"""Real given names and surnames: a spelling on this list is somebody's name, not a slip of the keyboard.

The resolver uses the list for one question only: when a word of a mention matches a word of a
candidate approximately ("Shaw" for "Shah", "Anna" for "Ana", "Hall" for "Hale"), is the mention's
spelling itself a real name? If it is, the mention may name another person who shares the rest of
the name (a namesake), and the pair is asked about unless independent evidence agrees (see
scoring.apply_rules). A slip such as "Arjoon", "Mehat" or "Kowalksi" is on no list.

How the list was built: from general public knowledge of common names (frequent surnames of the
US, UK, Irish, German, Nordic, Dutch, French, Iberian, Italian, Slavic, Indian, Chinese, Korean,
Japanese, Vietnamese, Arabic, Turkish, Jewish and West-African traditions; frequent given names
of the same), written by hand, folded to ASCII lower case as the resolver's tokens are. It is
deliberately compact (about 1,300 words) and deliberately includes the spelling pairs that name
different families or different people (Shah / Shaw, Chen / Chan, Wong / Wang, Hall / Hale, Smith /
Smyth, Jensen / Jenson, Meyer / Meier / Mayer, Clark / Clarke, Reid / Reed, Brown / Braun, Ana /
Anna, Jon / John, Marc / Mark, Eric / Erik, Carl / Karl, Sara / Sarah). It is not a census: a
name missing here is still caught by the other namesake signals (a first letter that differs, one
letter changed in a short name; see features.namesake_kind), and a wrongly listed word only makes
the resolver ask where it would have linked. Nothing here comes from ../shared data.
"""

from __future__ import annotations

GIVEN_NAMES = frozenset(
    """
aaron abby abdul abdullah abel abigail abraham ada adam adeline adele adrian adriana adrien agnes ahmad ahmed
aida aidan aiko aisha alan alana alba albert alberto alejandro alex alexa alexander alexandra alexandre alexis
alfred ali alice alicia alina alisha alison allan allen allison alma amal amanda amara amber amelia amina amir
amit amy ana anand ananya anders andre andrea andreas andrei andres andrew andy angel angela angelica angelo
anil anita anja anjali ann anna anne annette annie anthony anton antonio anya april arjun armando arnav arne
arthur arun aruna asha ashley astrid aurelie austin ava avery axel aya ayesha barbara barry bart beatrice
beatriz ben benedict benjamin bernard bernd bert beth betty bianca bill billy bjorn blake bob bonnie boris
brad bradley brandon brenda brian bridget brittany brooke bruce bruno bryan caleb camila camille cara carl
carla carlo carlos carly carmen carol carole caroline carolyn carrie casey cassandra catherine cecilia celia
cesar chad charles charlie charlotte chen chiara chloe chris christian christina christine christoph
christopher cindy claire clara claudia claudio colin connor conor craig cristina cynthia daisy dale damian
dan dana daniel daniela danielle danny daria dario darius dave david dawn dean deborah deepak deepika denis
denise dennis derek diana diane diego dieter dimitri dina dinesh dirk dmitri dominic don donald donna dora
doris dorothy doug douglas duncan dylan ed eddie edgar edith edward edwin eileen elaine elena eli elias elif
elijah elin elina elisa elise eliza elizabeth ella ellen ellie eloise elsa emil emilia emilio emily emma
emmanuel enrique eric erica erik erika erin ernest esther ethan eugene eva evan eve evelyn fabian faisal
farah fatima felix fernando filip filipe fiona florian frances francesca francesco francis francisco frank
franz fred frederick frida gabriel gabriela gabrielle gail gareth gary gavin gemma geoff geoffrey george
georgia gerald gerard gerhard gina giovanni giulia giuseppe gloria gordon grace graham grant greg gregory
greta gustav gwen hadi hai hakan hamid hana hank hanna hannah hans harold harriet harry hassan hazel heather
hector heidi helen helena helga henrik henry herbert hiroshi hugh hugo hui hussein ian ibrahim ida igor
ines ingrid irene iris isaac isabel isabella isla ivan ivana ivy jack jacob jacqueline jade jaime jake james
jamie jan jana jane janet janice jared jasmine jason javier jay jean jeff jeffrey jenna jennifer jenny jens
jeremy jerome jerry jesse jessica jesus jill jim jimmy jin jo joan joanna joao joe joel johan johanna john
johnny jon jonas jonathan jordan jorge jose josef joseph josh joshua joy juan judith judy julia julian
juliana julie julien julio jun justin kai kamal kara karen kari karim karin karl kate katharina katherine
kathleen kathryn kathy katie katrin kavya kay keith kelly kelvin ken kenji kenneth kerry kevin khalid kim
kimberly kirsten klaus kristen kristin kumar kurt kyle lakshmi lana lara larry lars laura lauren laurent
lea leah lee leila lena leo leon leonard leonardo leslie lewis liam lila lily lina linda lisa liz lois
lorenzo lori louis louise luca lucas lucia lucy luis luisa luka lukas luke lydia lynn madeleine madison magnus
mahmoud maja manuel mar mara marc marcel marco marcos marcus margaret maria marian mariana marie marina mario
marion marisa mark marko markus marta martha martin martina marty mary maryam mason mateo mathew mathias
matilda matt matteo matthew matthias maura maureen max maxim maya megan mehmet mei mel melanie melissa mia
michael michel michelle miguel mika mike mila milan miles milo min mina miriam mohamed mohammad mohammed
molly monica morgan moritz muhammad nadia nancy naomi natalia natalie natasha nathan nathaniel neha neil
nicholas nick nicola nicolas nicole niels nigel nikhil nikita nikolai nils nina nino noah noel nora norman oliver
olivia omar omer oscar otto owen pablo paola patricia patrick paul paula pauline pedro peggy per peter petra
philip philipp phillip pierre pietro pooja prakash priya rachel rafael rahul raj rajesh ralph ramon rana
randy raul ravi ray raymond rebecca regina rena renata rene renee rhys ricardo richard rick rita rob robert
roberta roberto robin rodrigo roger rohan roland roman ron ronald rosa rose rosie ross roy ruby rudolf rui
russell ruth ryan sabine sabrina sachin sahil salma sam samantha sami samir samuel sandeep sandra sanjay
santiago sara sarah sasha scott sean sebastian selma seo serena sergei sergio seth shane shannon sharon
shawn sheila shirley siddharth silvia simon simone sofia sonia sophia sophie stan stefan stefanie stella
stephan stephanie stephen steve steven stuart sue sunil susan susanne suzanne sven sylvia tamara tanya tara
ted teresa terry theo theresa thomas tim timothy tina tobias todd tom tomas tomasz tommy tony tracy travis tristan
troy tyler uma ursula uwe valentina valerie vanessa vera veronica vicky victor victoria vijay vikram
vincent viola violet vivian vladimir walter wanda wayne wei wendy werner wesley will william xavier yan
yana yasmin yuki yusuf yves zach zara zoe zoltan
""".split()
)

SURNAMES = frozenset(
    """
abbott abe acharya adams adler agarwal aguilar ahmed akhtar alexander ali allen alvarado alvares alvarez
anand andersen anderson ando andrews araujo arnold arora ashraf atkinson auer bach bailey baker baldwin ball
banerjee barber barker barnes barnett barr barrett barry bates bauer baxter beck becker bell bennett berg
berger bernard bertrand bhatt bianchi bianco bishop black blake bondarenko bose bowen boyd bradley brady
brandt braun brennan brooks brown bruno bryant burke burns bush butler byrne caldwell cale cameron campbell
caplan carlson carlsson carr carroll carter castillo castro chan chandra chang chapman chatterjee chaudhary
chen cheng cheung choi chopra chow christensen chung clark clarke cohen cohn cole coleman collins colombo
cook cooper costa coste cox crawford cruz cunningham da dang daniel das davidson davies davis dawson de
dean delgado desai diaz dietrich dixon doherty dong douglas doyle dubois duffy duncan dunn dunne durand
dutta edwards ellis elliott endo evans farrell ferguson fernandes fernandez ferrari ferreira fischer fisher
fitzgerald fleming fletcher flores ford foster fournier fox francis frank franke fraser friedman fuchs
fujita gallagher garcia gardner garza ghosh gibson gill gomes gomez gonzales gonzalez goodman gordon graham
grant gray green greene grey griffin gross gunther gupta gupte guzman hahn hall hamilton han hann hansen
hanson harris harrison hart hartmann hashimoto hayashi hayes hale henderson hernandez herrera hill hoffman
hoffmann holmes hopkins horvat howard hu huang hughes hunt hunter hussain hwang inoue ito itoh ivanov ivanova
iyer jackson jacobs james jang jansen janssen jenkins jensen jenson jimenez johansson johnson johnston jones
jonson jordan joshi jung kahn kale kang kano kaplan kapoor katz kaur kato keller kelly kennedy khan kim king
klein kline knight koch kong kowalska kowalski kramer krause krishnan kruger kumar kuznetsov lambert lang
larsen larson lawrence lawson le lee lehmann levi levy lewis li lim lin lindqvist liu lloyd long lopes lopez
lorenz lu lucas ly ma mack maier mann marin marsh marshall marten martin martinez martins mason matthews
maurer mayer mcdonald mckenzie mehta meier menon mendes mendoza meyer miller mills mishra mitchell moller
montgomery moore morales more moreau moreno mori morgan morris moro morrison muller murphy murray nair
nakamura nakagawa nelson neumann newman nguyen nielsen nilsen nilsson nowak novak obrien oconnor okafor
oliveira olsen olson ortiz owen owens pak palmer park parker patel pate paul pearson perera peres perez perry
peters petersen peterson petrov petrova pham phan phillips pillai pierce porter powell price pryce quinn rao
rath read reddy reed reid reyes reynolds rhodes rice richards richardson richter riley rivera roberts
robertson robinson rodrigues rodriguez rogers romero rose ross rossi roth roy ruiz russell russo ryan saito
sanchez sanders santos sato saunders schafer schmidt schmitt schneider scholz schreiber schroeder schulz
schwarz scott sen shah shapiro sharma shaw shen silva simmons simpson singh sinha smith smyth snyder sokolov
song sousa spencer stein stern stevens stewart stone sullivan sun suzuki takahashi tan tanaka tang taylor
thomas thompson thomson torres tran turner vargas vasquez verma vogel wagner walker wallace walsh walter wang
ward warner watanabe watson weber wegner weis weiss wells white williams wilson wolf wong wood wright wu xu
yadav yamada yamamoto yang yilmaz young yu yung zhang zhao zhou zhu zimmermann
""".split()
)

REAL_NAMES = GIVEN_NAMES | SURNAMES


def is_real_name(word: str) -> bool:
    """Whether a folded, lower-case word is on the list of real given names or surnames."""
    return word in REAL_NAMES
