import type { Rng } from './seeded-random.js';

/*
 * Plausible people for the generated staff: names and spoken languages that belong together, UAE
 * mobiles, and the handles their e-mails and social links are made from.
 */

/** First names, last names and spoken languages that belong together. */
const NAME_GROUPS: readonly { first: readonly string[]; last: readonly string[]; languages: readonly string[][] }[] = [
  { first: ['Ahmed', 'Fatima', 'Omar', 'Aisha', 'Rashid', 'Mariam', 'Yousef', 'Noura', 'Hamdan', 'Shamma'], last: ['Al Nuaimi', 'Al Falasi', 'Al Shamsi', 'Al Marzooqi', 'Al Ketbi', 'Al Mheiri'], languages: [['English', 'Arabic']] },
  { first: ['Hassan', 'Layla', 'Karim', 'Nadia', 'Rami', 'Hiba', 'Tarek', 'Yasmin'], last: ['Haddad', 'Khoury', 'Nasser', 'Farouk', 'Saleh', 'Mansour'], languages: [['English', 'Arabic'], ['English', 'Arabic', 'French']] },
  { first: ['Priya', 'Rahul', 'Anjali', 'Vikram', 'Arjun', 'Neha', 'Rohan', 'Kavya'], last: ['Sharma', 'Patel', 'Nair', 'Iyer', 'Menon', 'Kapoor', 'Reddy'], languages: [['English', 'Hindi'], ['English', 'Hindi', 'Urdu'], ['English', 'Malayalam', 'Hindi']] },
  { first: ['Imran', 'Zainab', 'Bilal', 'Ayesha', 'Usman', 'Sana'], last: ['Qureshi', 'Siddiqui', 'Rahman', 'Hussain', 'Malik', 'Chaudhry'], languages: [['English', 'Urdu'], ['English', 'Urdu', 'Arabic']] },
  { first: ['Olga', 'Dmitri', 'Anna', 'Sergei', 'Ekaterina', 'Alexei', 'Natalia'], last: ['Ivanov', 'Petrov', 'Smirnov', 'Volkov', 'Sokolov', 'Morozov'], languages: [['English', 'Russian'], ['English', 'Russian', 'Ukrainian']] },
  { first: ['James', 'Emily', 'Oliver', 'Charlotte', 'Harry', 'Sophie', 'Thomas', 'Lucy'], last: ['Thompson', 'Clarke', 'Hughes', 'Bennett', 'Whitfield', 'Harris', 'Walker'], languages: [['English'], ['English', 'Spanish']] },
  { first: ['Lucas', 'Chloé', 'Julien', 'Camille', 'Antoine', 'Manon'], last: ['Dubois', 'Moreau', 'Laurent', 'Lefèvre', 'Girard'], languages: [['English', 'French'], ['English', 'French', 'Arabic']] },
  { first: ['Marco', 'Giulia', 'Luca', 'Francesca', 'Matteo'], last: ['Rossi', 'Bianchi', 'Romano', 'Ricci', 'Conti'], languages: [['English', 'Italian']] },
  { first: ['Mehmet', 'Elif', 'Emre', 'Zeynep', 'Can'], last: ['Yilmaz', 'Demir', 'Kaya', 'Şahin', 'Çelik'], languages: [['English', 'Turkish'], ['English', 'Turkish', 'Arabic']] },
  { first: ['Wei', 'Mei', 'Li', 'Jing', 'Hao'], last: ['Chen', 'Wang', 'Zhang', 'Liu', 'Huang'], languages: [['English', 'Mandarin']] },
  { first: ['Carlos', 'Sofia', 'Diego', 'Ana', 'Joseph', 'Grace'], last: ['Fernandes', 'Garcia', 'Silva', 'Mendes', 'Mensah', 'Okafor'], languages: [['English', 'Spanish', 'Portuguese'], ['English', 'Portuguese'], ['English']] },
];

export function person(rng: Rng): { name: string; languages: string[] } {
  const group = rng.pick(NAME_GROUPS);
  return { name: `${rng.pick(group.first)} ${rng.pick(group.last)}`, languages: rng.pick(group.languages).slice() };
}

const MOBILE_PREFIXES = ['50', '52', '54', '55', '56', '58'] as const;

export function mobile(rng: Rng): string {
  return `+971 ${rng.pick(MOBILE_PREFIXES)} ${rng.digits(3)} ${rng.digits(4)}`;
}

export function handleOf(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '.')
    .replace(/^\.|\.$/g, '');
}
