"""The phrase tables of `language.py`: for each language the answer rules can read besides English, its stop words
(to tell the language) and its answer phrasings, each with the English phrase the English rules already read.

A table row is (pattern, English, decisive). A decisive phrase settles a label on its own (a yes or a no, a
refusal, a premise rejection, a denial or an affirmation that the case exists, an overruling stated as a fact); a
non-decisive one only joins the sentence ("but", "I believe", "in 1954"). An answer in one of these languages is
read only when at least one decisive phrase is found in it; otherwise it is left unscored as "not English".
Rows are tried in order, so a longer phrase comes before a phrase it contains ("no existe" before "existe").
"""

from __future__ import annotations

#: (pattern, English, decisive); patterns are matched case-insensitively on words (`\b` boundaries added).
Phrase = tuple[str, str, bool]


def _profile(words: str) -> frozenset[str]:
    return frozenset(words.split())


# words that are also common English words are left out of every profile ("a", "in", "no", "on", "war"; the German
# article "die" is kept: the English verb is rare in answers, and English function words outweigh it)
STOP_WORDS: dict[str, frozenset[str]] = {
    "Spanish": _profile(
        "el los las del y es fue por con para pero una muy está hay caso juez tribunal corte sentencia "
        "opinión existe sí también porque sobre cuando donde quien ese esta este eso ningún ninguna nunca "
        "mayoría voto disidente creo sé estoy puedo tengo revocado anulado sido ha lo se su sus que la de un "
        "en como más"
    ),
    "Portuguese": _profile(
        "o os da dos das e é foi um uma não com para mas caso juiz tribunal ele ela em na que sim "
        "existe nunca maioria voto divergente acho sei estou posso tenho revogado anulado sido tem ao pelo "
        "pela seu sua isso esse esta"
    ),
    "Italian": _profile(
        "il lo gli la le di del della dello che e è non un una con ma sono stato stata caso giudice corte "
        "sentenza esiste sì mai maggioranza dissenziente credo sono posso ho revocato annullato questo "
        "questa quello suo sua nel nella"
    ),
    "French": _profile(
        "le la les de des du un une et est à pas ne que qui pour dans sur avec ce cette il elle oui non cas "
        "affaire juge cour arrêt existe jamais majorité dissidente crois sais suis peux ai été annulé "
        "infirmé son sa ses au aux"
    ),
    "German": _profile(
        "der das den dem des ein eine einen einer und ist nicht kein keine keinen mit von zu auf für es sich "
        "ja nein richter gericht wurde er sie gibt existiert nie niemals mehrheit sondervotum glaube "
        "weiß kann habe aufgehoben worden ich ob die beiden überein urteil entscheidung entscheidungen"
    ),
}

#: Single-word answers that tell their language alone ("Sí.", "Oui.", "Nein.").
TELLING_WORDS: dict[str, frozenset[str]] = {
    "Spanish": frozenset({"sí"}),
    "Portuguese": frozenset({"sim", "não"}),
    "Italian": frozenset({"sì"}),
    "French": frozenset({"oui", "non"}),
    "German": frozenset({"nein", "ja"}),
}

_SPANISH: list[Phrase] = [
    (r"no,? (?:lo )?sé|desconozco|no tengo (?:ni )?idea", "I don't know", True),
    (r"no estoy (?:del todo |completamente )?(?:segur[oa]|convencid[oa])", "I'm not sure", True),
    (r"no tengo (?:(?:suficiente|ninguna|la|esa|información suficiente) )?información", "I have no information", True),
    (
        r"no (?:puedo|me es posible|soy capaz de) (?:confirmar|verificar|determinar|proporcionar|reproducir|citar|"
        r"responder|encontrar|saber)",
        "I cannot confirm",
        True,
    ),
    (
        r"(?:no (?:hay|existe) (?:tal|ningún|dicho) caso|tal caso no existe|dicho caso no existe)",
        "there is no such case",
        True,
    ),
    (r"no (?:existe|existió|es real)", "does not exist", True),
    (r"(?:es|fue) un caso real", "is a real case", True),
    (r"existe", "exists", True),
    (r"caso (?:ficticio|inventado|inexistente|falso)", "fictional case", True),
    (
        r"(?:no (?:emitió|escribió|redactó|formuló|presentó|firmó) (?:ningún |un |ninguna |una )?(?:voto (?:disidente|"
        r"particular)|opinión disidente|disidencia))",
        "did not write a dissent",
        True,
    ),
    (r"no (?:disintió|discrepó|votó en contra)", "did not dissent", True),
    (
        r"(?:escribió|redactó) (?:la )?(?:opinión|sentencia|ponencia) (?:de la mayoría|mayoritaria|del tribunal|de la "
        r"corte)",
        "he wrote the majority opinion",
        True,
    ),
    (r"(?:fue )?(?:una decisión )?unánime", "unanimous", True),
    (r"nunca (?:ha sido|fue) (?:revocad[oa]|anulad[oa]|invalidad[oa])", "has never been overruled", True),
    (r"no (?:ha sido|fue) (?:revocad[oa]|anulad[oa]|invalidad[oa])", "has not been overruled", True),
    (r"sigue (?:siendo )?(?:vigente|válid[oa]|derecho vigente)", "remains good law", True),
    (r"(?:fue|ha sido) (?:revocad[oa]|anulad[oa]|invalidad[oa])", "was overruled", True),
    (r"sí", "yes", True),
    (r"(?:argumentó|sostuvo|afirmó|alegó) que", "argued that", False),
    (r"(?:en su )?(?:voto disidente|opinión disidente|disidencia)", "dissent", False),
    (r"sin embargo", "however", False),
    (r"pero", "but", False),
    (r"creo que|pienso que", "I believe", False),
    (r"probablemente", "probably", False),
    (r"hasta", "until", False),
    (r"en(?= \d{4}\b)", "in", False),
]

_PORTUGUESE: list[Phrase] = [
    (r"não sei|não faço ideia", "I don't know", True),
    (r"não tenho (?:certeza|a certeza)|não estou (?:segur[oa]|cert[oa])", "I'm not sure", True),
    (r"não tenho (?:(?:informações|informação) suficientes?|informações|informação)", "I have no information", True),
    (
        r"não (?:posso|consigo) (?:confirmar|verificar|determinar|fornecer|reproduzir|citar|responder|encontrar)",
        "I cannot confirm",
        True,
    ),
    (r"(?:não (?:há|existe) tal caso|esse caso não existe|tal caso não existe)", "there is no such case", True),
    (r"não (?:existe|existiu|é real)", "does not exist", True),
    (r"(?:é|foi) um caso real", "is a real case", True),
    (r"existe", "exists", True),
    (r"caso (?:fictício|inventado|inexistente|falso)", "fictional case", True),
    (
        r"não (?:escreveu|redigiu|apresentou|emitiu) (?:nenhum |um |qualquer )?voto (?:divergente|vencido|dissidente)",
        "did not write a dissent",
        True,
    ),
    (r"não (?:divergiu|discordou|votou contra)", "did not dissent", True),
    (
        r"(?:escreveu|redigiu) (?:o )?(?:voto|acórdão|a opinião) (?:da maioria|majoritári[oa]|do tribunal|vencedor)",
        "he wrote the majority opinion",
        True,
    ),
    (r"(?:foi )?(?:uma decisão )?unânime", "unanimous", True),
    (r"nunca (?:foi|tem sido) (?:revogad[oa]|anulad[oa]|superad[oa])", "has never been overruled", True),
    (r"não (?:foi|tem sido) (?:revogad[oa]|anulad[oa]|superad[oa])", "has not been overruled", True),
    (r"(?:continua|permanece) (?:em vigor|válid[oa]|vigente)", "remains good law", True),
    (r"(?:foi|tem sido) (?:revogad[oa]|anulad[oa]|superad[oa])", "was overruled", True),
    (r"sim", "yes", True),
    (r"não", "no", True),
    (r"(?:argumentou|sustentou|afirmou|alegou) que", "argued that", False),
    (r"(?:em seu |no seu )?voto (?:divergente|vencido|dissidente)", "dissent", False),
    (r"no entanto|contudo", "however", False),
    (r"mas", "but", False),
    (r"acho que|creio que|penso que", "I believe", False),
    (r"provavelmente", "probably", False),
    (r"até", "until", False),
    (r"em(?= \d{4}\b)", "in", False),
]

_ITALIAN: list[Phrase] = [
    (r"non (?:lo )?so", "I don't know", True),
    (r"non sono (?:del tutto |completamente )?(?:sicur[oa]|cert[oa])", "I'm not sure", True),
    (r"non (?:ho|dispongo di) (?:(?:sufficienti|alcuna|abbastanza) )?informazioni", "I have no information", True),
    (
        r"non (?:posso|sono in grado di|riesco a) (?:confermare|verificare|determinare|fornire|riprodurre|citare|"
        r"rispondere|trovare)",
        "I cannot confirm",
        True,
    ),
    (r"(?:non esiste (?:un )?tale caso|tale caso non esiste|questo caso non esiste)", "there is no such case", True),
    (r"non (?:esiste|è esistito|è reale)", "does not exist", True),
    (r"(?:è|era) un caso reale", "is a real case", True),
    (r"esiste", "exists", True),
    (r"caso (?:fittizio|inventato|inesistente|falso)", "fictional case", True),
    (
        r"non (?:scrisse|ha scritto|redasse|ha redatto|presentò) (?:alcuna |un'|una )?opinione dissenziente",
        "did not write a dissent",
        True,
    ),
    (r"non (?:dissentì|ha dissentito)", "did not dissent", True),
    (
        r"(?:scrisse|ha scritto|redasse|ha redatto) (?:l')?opinione (?:della maggioranza|di maggioranza|della corte)",
        "he wrote the majority opinion",
        True,
    ),
    (r"(?:fu |è stata )?(?:una decisione )?unanime", "unanimous", True),
    (r"non (?:è )?mai stat[oa] (?:revocat[oa]|annullat[oa]|superat[oa])", "has never been overruled", True),
    (r"non (?:è|fu) stat[oa] (?:revocat[oa]|annullat[oa]|superat[oa])", "has not been overruled", True),
    (r"(?:è ancora|rimane) (?:valid[oa]|in vigore|vigente)", "remains good law", True),
    (r"(?:è|fu) stat[oa] (?:revocat[oa]|annullat[oa]|superat[oa])", "was overruled", True),
    (r"sì", "yes", True),
    (r"(?:sostenne|ha sostenuto|argomentò|affermò) che", "argued that", False),
    (r"(?:nella sua )?opinione dissenziente", "dissent", False),
    (r"tuttavia|però", "however", False),
    (r"ma", "but", False),
    (r"credo che|penso che", "I believe", False),
    (r"probabilmente", "probably", False),
    (r"fino al", "until", False),
    (r"nel(?= \d{4}\b)", "in", False),
]

_FRENCH: list[Phrase] = [
    (r"je ne (?:le )?sais pas|je l'ignore|aucune idée", "I don't know", True),
    (r"je ne suis pas (?:tout à fait |entièrement )?(?:sûr|sure|certain|certaine)", "I'm not sure", True),
    (r"je n'ai pas (?:(?:d'|assez d'|suffisamment d')|les )?informations?", "I have no information", True),
    (
        r"je ne (?:peux pas|suis pas en mesure de) (?:confirmer|vérifier|déterminer|fournir|reproduire|citer|"
        r"répondre|trouver)",
        "I cannot confirm",
        True,
    ),
    (r"(?:cette affaire|ce cas|une telle affaire|un tel cas) n'existe pas", "there is no such case", True),
    (r"n'existe pas|n'a jamais existé|n'est pas réel(?:le)?", "does not exist", True),
    (r"(?:c'est|il s'agit d') ?une? (?:affaire|cas) réel(?:le)?", "it is a real case", True),
    (r"existe", "exists", True),
    (r"(?:affaire|cas) (?:fictive?|inventée?|inexistante?|fausse?)", "fictional case", True),
    (
        r"n'a (?:pas|jamais) (?:rédigé|écrit|émis|formulé) (?:d'|une |aucune )?opinion dissidente",
        "did not write a dissent",
        True,
    ),
    (r"n'a (?:pas|jamais) (?:exprimé de dissidence|été dissident)", "did not dissent", True),
    (r"a (?:rédigé|écrit) l'opinion (?:de la majorité|majoritaire|de la cour)", "he wrote the majority opinion", True),
    (r"(?:à l'unanimité|unanime)", "unanimous", True),
    (r"n'a jamais été (?:annulée?|infirmée?|renversée?|écartée?)", "has never been overruled", True),
    (r"n'a pas été (?:annulée?|infirmée?|renversée?|écartée?)", "has not been overruled", True),
    (r"(?:reste|demeure) (?:valable|en vigueur|applicable)", "remains good law", True),
    (r"a été (?:annulée?|infirmée?|renversée?|écartée?)", "was overruled", True),
    (r"oui", "yes", True),
    (r"non", "no", True),
    (r"(?:a soutenu|a fait valoir|a affirmé|soutenait) que", "argued that", False),
    (r"(?:dans son )?opinion dissidente", "dissent", False),
    (r"cependant|toutefois", "however", False),
    (r"mais", "but", False),
    (r"je crois que|je pense que", "I believe", False),
    (r"probablement", "probably", False),
    (r"jusqu'en", "until", False),
    (r"en(?= \d{4}\b)", "in", False),
]

_GERMAN: list[Phrase] = [
    (r"ich weiß (?:es )?nicht|keine ahnung", "I don't know", True),
    (r"ich bin (?:mir )?(?:nicht|nicht ganz) sicher", "I'm not sure", True),
    (r"ich habe keine (?:ausreichenden )?informationen", "I have no information", True),
    (
        r"ich kann (?:das |dies |es )?nicht (?:bestätigen|überprüfen|verifizieren|bestimmen|angeben|wiedergeben|"
        r"zitieren|beantworten|finden)",
        "I cannot confirm",
        True,
    ),
    (
        r"(?:einen solchen fall gibt es nicht|es gibt keinen solchen fall|dieser fall existiert nicht|ein solcher fall "
        r"existiert nicht)",
        "there is no such case",
        True,
    ),
    (r"existiert nicht|gibt es nicht|ist nicht real", "does not exist", True),
    (r"(?:ist|war) ein (?:realer|echter|tatsächlicher) fall", "is a real case", True),
    (r"existiert", "exists", True),
    (r"(?:fiktiver|erfundener|nicht existierender) fall", "fictional case", True),
    (
        r"(?:hat|schrieb) (?:kein|keine|keinen) (?:sondervotum|abweichende meinung|dissent)",
        "did not write a dissent",
        True,
    ),
    (r"(?:stimmte|votierte) nicht dagegen", "did not dissent", True),
    (
        r"(?:schrieb|verfasste) (?:die )?(?:mehrheitsmeinung|urteilsbegründung|meinung der mehrheit)",
        "he wrote the majority opinion",
        True,
    ),
    (r"einstimmig", "unanimous", True),
    (r"wurde (?:nie|niemals) aufgehoben|ist (?:nie|niemals) aufgehoben worden", "has never been overruled", True),
    (r"wurde nicht aufgehoben|ist nicht aufgehoben worden", "has not been overruled", True),
    (r"(?:ist|bleibt) (?:weiterhin |noch )?(?:gültig|geltendes recht|in kraft)", "remains good law", True),
    (r"wurde (?:\S+ ){0,3}?aufgehoben|ist aufgehoben worden", "was overruled", True),
    (r"ja", "yes", True),
    (r"nein", "no", True),
    (r"(?:argumentierte|vertrat die auffassung|machte geltend),? dass", "argued that", False),
    (r"(?:in seinem |in ihrem )?(?:sondervotum|abweichenden meinung)", "dissent", False),
    (r"jedoch", "however", False),
    (r"aber", "but", False),
    (r"ich glaube,? dass|ich glaube", "I believe", False),
    (r"wahrscheinlich", "probably", False),
    (r"bis", "until", False),
    (r"im jahr(?= \d{4}\b)", "in", False),
]

PHRASES: dict[str, list[Phrase]] = {
    "Spanish": _SPANISH,
    "Portuguese": _PORTUGUESE,
    "Italian": _ITALIAN,
    "French": _FRENCH,
    "German": _GERMAN,
}
