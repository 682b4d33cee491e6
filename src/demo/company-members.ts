import type { Rec, Row } from './bundle-record.js';
import { DEVELOPERS } from './developers.js';
import type { AddFile } from './file-records.js';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID, SECOND_AGENCY_AUTHOR_ID, SECOND_AGENCY_ID } from './notable-records.js';
import { handleOf, mobile, person } from './people.js';
import type { Rng } from './seeded-random.js';
import { ts } from './timestamps.js';

/*
 * The people behind the companies: user accounts, their membership of a company, and which developer
 * staff may author projects (the CEO and managers, not former employees).
 */

export function generateUsersAndMembers(
  rng: Rng,
  addFile: AddFile,
): { users: Row<'users'>[]; members: Row<'company_members'>[]; developerAuthors: Map<number, number[]> } {
  const users: Row<'users'>[] = [];
  const members: Row<'company_members'>[] = [];
  const usedEmails = new Set<string>();
  const addUser = (name: string, domain: string, type: number, createdDays: number, deleted = false): number => {
    const id = users.length + 1;
    let email = `${handleOf(name)}@${domain}`;
    for (let n = 2; usedEmails.has(email); n++) email = `${handleOf(name)}${n}@${domain}`;
    usedEmails.add(email);
    const user: Row<'users'> = { id, name, email, status: 1, type, created_at: ts(createdDays), updated_at: ts(createdDays + 10) };
    if (deleted) user.deleted = true;
    users.push(user);
    return id;
  };
  const socialLinks = (name: string, phone: string, domain: string): Rec => {
    const h = handleOf(name).replace(/\./g, '_');
    const links: Rec = {};
    if (rng.chance(0.6)) links.telegram = `@${h}`;
    if (rng.chance(0.7)) links.instagram = h;
    if (rng.chance(0.8)) links.linkedin = `https://www.linkedin.com/in/${h.replace(/_/g, '-')}`;
    if (rng.chance(0.3)) links.facebook = `https://www.facebook.com/${h}`;
    if (rng.chance(0.25)) links.twitter = `@${h}`;
    if (rng.chance(0.7)) links.whatsapp = phone.replace(/ /g, '');
    if (rng.chance(0.3)) links.website = `https://www.${domain}`;
    return links;
  };
  const addMember = (
    companyId: number,
    userId: number,
    role: string,
    name: string,
    languages: string[],
    domain: string,
    bio: string,
    withAvatar: boolean,
  ): void => {
    const phone = mobile(rng);
    const member: Row<'company_members'> = {
      company_id: companyId,
      user_id: userId,
      role,
      contact_phone: phone,
      social_links: socialLinks(name, phone, domain),
      languages,
      bio,
    };
    if (withAvatar) member.avatar_file_id = addFile(`users/${userId}/avatar.jpg`, `${handleOf(name)}.jpg`, 'image/jpeg', 40, 400, -300);
    members.push(member);
  };

  // Demo agency: owner (the demo key's author), a broker and a manager.
  const owner = addUser('Rania Haddad', 'desertrose.example', 1, -700);
  addMember(DEMO_AGENCY_ID, owner, 'ceo', 'Rania Haddad', ['English', 'Arabic', 'French'], 'desertrose.example', 'Founder of Desert Rose; 15 years in Dubai residential sales.', true);
  const broker = addUser('Arjun Mehta', 'desertrose.example', 2, -500);
  addMember(DEMO_AGENCY_ID, broker, 'broker', 'Arjun Mehta', ['English', 'Hindi'], 'desertrose.example', 'Off-plan specialist for Dubai Marina and JLT.', true);
  const manager = addUser('Elena Volkova', 'desertrose.example', 2, -400);
  addMember(DEMO_AGENCY_ID, manager, 'manager', 'Elena Volkova', ['English', 'Russian'], 'desertrose.example', 'Sales manager; Russian- and English-speaking investor desk.', false);
  // Second agency.
  const secondOwner = addUser('Khalid Al Suwaidi', 'bluecreek.example', 1, -45);
  addMember(SECOND_AGENCY_ID, secondOwner, 'ceo', 'Khalid Al Suwaidi', ['English', 'Arabic'], 'bluecreek.example', 'Managing partner of Blue Creek Properties.', false);
  const secondBroker = addUser('Sophie Laurent', 'bluecreek.example', 2, -40);
  addMember(SECOND_AGENCY_ID, secondBroker, 'broker', 'Sophie Laurent', ['English', 'French'], 'bluecreek.example', 'Waterfront and Abu Dhabi island specialist.', true);
  if (owner !== DEMO_AUTHOR_ID || secondOwner !== SECOND_AGENCY_AUTHOR_ID) throw new Error('demo user ids drifted');

  // Developers: a CEO and 1..3 contacts each. The first developer also has a former (deleted) employee.
  const developerAuthors = new Map<number, number[]>();
  DEVELOPERS.forEach((d, index) => {
    const domain = `${d.slug}.example`;
    const count = index === 0 ? 4 : rng.int(2, 4);
    const authors: number[] = [];
    for (let k = 0; k < count; k++) {
      const { name, languages } = person(rng);
      const formerEmployee = index === 0 && k === count - 1;
      const userId = addUser(name, domain, formerEmployee ? 0 : 3, -rng.int(200, 600), formerEmployee);
      const role = k === 0 ? 'ceo' : k === 1 ? rng.pick(['manager', 'broker']) : rng.pick(['broker', 'sales', 'manager']);
      const bio =
        k === 0
          ? `Chief Executive Officer of ${d.name}.`
          : `${role === 'manager' ? 'Sales manager' : role === 'sales' ? 'Sales executive' : 'Property consultant'} at ${d.name}, covering ${rng.pick(d.areas)}.`;
      addMember(d.id, userId, role, name, languages, domain, bio, k > 0 && rng.chance(0.6));
      if (!formerEmployee && (k === 0 || role === 'manager')) authors.push(userId);
    }
    developerAuthors.set(d.id, authors);
  });
  return { users, members, developerAuthors };
}
