// The order module of the debugger tests: named the way a business app names things.

export function totaleRiga(prezzo, quantita) {
  const subtotale = prezzo * quantita;
  if (subtotale < 0) throw new RangeError("riga negativa: " + subtotale);
  return subtotale;
}

export function validaOrdine(ordine, password) {
  if (!password) throw new Error("password mancante");
  const righe = ordine.righe;
  let totale = 0;
  for (const riga of righe) {
    totale += totaleRiga(riga.prezzo, riga.quantita);
  }
  const cliente = { nome: ordine.cliente, righe: righe.length, vip: true };
  if (totale > ordine.limite) {
    throw new Error("limite superato: " + totale);
  }
  return totale + cliente.righe * 0;
}

export function sommaLunga(quanti) {
  let somma = 0;
  for (let indice = 0; indice < quanti; indice++) {
    somma += indice;
  }
  return somma;
}
